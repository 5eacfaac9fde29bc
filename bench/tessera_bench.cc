// Placeholder until the benchdnn-compatible driver lands (issue 7): prints the library version
// and the ISAs this machine offers, so the README's main command already runs end to end.
#include <cstdio>

#include "tessera/core/version.h"
#include "xsimd/xsimd.hpp"

int main(int argc, char** argv) {
  std::printf("tessera %s\n", tessera::kVersionString);
  auto isa = xsimd::available_architectures();
  std::printf("ISAs: sse4_2=%d avx2=%d avx512bw=%d\n", int(isa.sse4_2), int(isa.avx2), int(isa.avx512bw));
  std::printf("driver not built yet; ignoring %d argument(s)\n", argc - 1);
  return 0;
}
