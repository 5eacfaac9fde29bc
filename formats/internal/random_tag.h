// Test helpers: the plain tag of a random permutation of `rank` dims ("cadb" for rank 4), the
// start of the random layouts formats/' property tests block further, and one such blocking.
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

#include "tessera/formats/algebra.h"
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

// A random plain tag with up to three inner blocks of sizes 2, 3, 4, 8 or 16 on random dims (a dim
// may be blocked more than once, and its blocks need not nest): "cADb4a3d" for rank 4.
inline tag_layout random_blocked_tag(std::mt19937& rng, int rank) {
  tag_layout t = random_plain_tag(rng, rank);
  const dim_t sizes[] = {2, 3, 4, 8, 16};
  for (int b = static_cast<int>(rng() % 4); b > 0; --b) {
    const int dim = static_cast<int>(rng() % rank);
    const dim_t size = sizes[rng() % 5];
    t = block(t, dim, size);
  }
  return t;
}

}  // namespace tessera

#endif  // TESSERA_FORMATS_INTERNAL_RANDOM_TAG_H_
