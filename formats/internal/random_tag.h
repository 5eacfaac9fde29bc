// Test helper: the plain tag of a random permutation of `rank` dims ("cadb" for rank 4), the
// start of the random layouts formats/' property tests block further.
//
//   std::mt19937 rng(7);
//   tag_layout t = random_plain_tag(rng, 4);
//   t = block(t, rng() % 4, 8);
#ifndef TESSERA_FORMATS_INTERNAL_RANDOM_TAG_H_
#define TESSERA_FORMATS_INTERNAL_RANDOM_TAG_H_

#include <algorithm>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "tessera/formats/tag.h"

namespace tessera {

inline tag_layout random_plain_tag(std::mt19937& rng, int rank) {
  std::vector<int> perm(rank);
  std::iota(perm.begin(), perm.end(), 0);
  std::shuffle(perm.begin(), perm.end(), rng);
  std::string s;
  for (int d : perm) s += static_cast<char>('a' + d);
  return *parse_tag(s);
}

}  // namespace tessera

#endif  // TESSERA_FORMATS_INTERNAL_RANDOM_TAG_H_
