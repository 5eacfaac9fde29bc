// libFuzzer target: the run-time string parsers (tags, verbose descriptors, benchdnn options,
// dims). First byte: which parser (mod 4) and, for tags, the rank (-1..12). The rest is the text;
// for parse_verbose_md the descriptor and the dims are separated by the first '|'.
// Property: never crash; when a parse succeeds, printing the result and parsing it again gives
// the same value (round trip), so a parser cannot accept text it misreads.
#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/strings/str_cat.h"
#include "tessera/formats/layout.h"
#include "tessera/formats/md_string.h"
#include "tessera/formats/tag.h"
#include "tessera/reliability/fuzz_input.h"

using tessera::reliability::byte_reader;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  byte_reader in(data, size);
  const uint8_t selector = in.u8();
  const std::string text = in.rest();
  switch (selector % 4) {
    case 0: {
      const int rank = static_cast<int>(selector / 4) % 14 - 1;
      auto t = tessera::parse_tag(text, rank);
      if (!t.ok()) {
        TESSERA_FUZZ_CHECK(!t.status().message().empty(), "error without a message");
        break;
      }
      if (t->is_any) break;
      const std::string printed = tessera::to_string(*t);
      auto again = tessera::parse_tag(printed, t->rank);
      TESSERA_FUZZ_CHECK(again.ok(), absl::StrCat("'", text, "' -> '", printed, "': ",
                                                  again.status().ToString()));
      TESSERA_FUZZ_CHECK(*again == *t, absl::StrCat("'", text, "' -> '", printed, "' differs"));
      break;
    }
    case 1: {
      const size_t bar = text.find('|');
      const std::string md_text = text.substr(0, bar);
      const std::string dims_text = bar == std::string::npos ? "" : text.substr(bar + 1);
      auto md = tessera::parse_verbose_md(md_text, dims_text);
      if (!md.ok()) break;
      const std::string printed = tessera::verbose_md_string(*md);
      const std::string dims = tessera::dims_to_string(md->dims());
      auto again = tessera::parse_verbose_md(printed, dims);
      TESSERA_FUZZ_CHECK(again.ok(), absl::StrCat("'", text, "' -> '", printed, "' ", dims, ": ",
                                                  again.status().ToString()));
      TESSERA_FUZZ_CHECK(*again == *md, absl::StrCat("'", text, "' -> '", printed, "' differs"));
      break;
    }
    case 2: {
      auto md = tessera::parse_benchdnn_args(text);
      if (!md.ok()) break;
      auto printed = tessera::benchdnn_args(*md);
      TESSERA_FUZZ_CHECK(printed.ok(), absl::StrCat("'", text, "': ", printed.status().ToString()));
      auto again = tessera::parse_benchdnn_args(*printed);
      TESSERA_FUZZ_CHECK(again.ok(), absl::StrCat("'", text, "' -> '", *printed, "': ",
                                                  again.status().ToString()));
      TESSERA_FUZZ_CHECK(*again == *md, absl::StrCat("'", text, "' -> '", *printed, "' differs"));
      break;
    }
    default: {
      auto dims = tessera::parse_dims(text);
      if (!dims.ok()) break;
      const std::string printed = tessera::dims_to_string(*dims);
      auto again = tessera::parse_dims(printed);
      TESSERA_FUZZ_CHECK(again.ok() && *again == *dims,
                         absl::StrCat("'", text, "' -> '", printed, "' does not round-trip"));
      break;
    }
  }
  return 0;
}
