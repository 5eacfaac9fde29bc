// Reads and writes single elements of any data type as double, written from the formats' bit
// layouts alone (not from <tessera/core/convert.h>), so the test utilities stay an independent
// reference for the library they test.
#ifndef TESSERA_TESTING_INTERNAL_ELEMENT_CODEC_H_
#define TESSERA_TESTING_INTERNAL_ELEMENT_CODEC_H_

#include <cstdint>

#include "tessera/core/data_type.h"

namespace tessera::testing::internal {

// The element at p (of type dt) as a double: exact for every type.
double read_element(data_type dt, const void* p);

// Writes x into the element at p. Floating types: NaN becomes the type's quiet NaN, ±Inf stays
// ±Inf where the type has it, finite values are rounded toward zero and clamped to the largest
// finite magnitude. Integer types: NaN -> 0, rounded toward zero, clamped to the range.
// Exact whenever representable(dt, x).
void write_element(data_type dt, void* p, double x);

// Whether x is exactly a value of dt (NaN counts as representable by floating types only).
bool representable(data_type dt, double x);

// The element's bit pattern, zero-extended (for messages and ulp distances).
uint64_t element_bits(data_type dt, const void* p);

// Distance in units in the last place between two values of floating type dt, both finite or
// equal infinities; -1 when a NaN is involved.
int64_t ulp_distance(data_type dt, const void* a, const void* b);

// The smallest value of dt above x (x must be representable and finite); +Inf (or the largest
// finite value for types without Inf) stays.
double next_up(data_type dt, double x);
double next_down(data_type dt, double x);

// Largest finite value, lowest finite value, smallest positive normal and denormal of dt (the
// last two are 1 for integer types).
double max_of(data_type dt);
double lowest_of(data_type dt);
double min_normal_of(data_type dt);
double min_denormal_of(data_type dt);
bool has_infinity(data_type dt);

}  // namespace tessera::testing::internal

#endif  // TESSERA_TESTING_INTERNAL_ELEMENT_CODEC_H_
