/* Tessera's C API: memory descriptors, reorder and softmax from C11 and through FFI.
 *
 *   #include <tessera/c/tessera.h>
 *
 *   int64_t dims[4] = {2, 17, 3, 3};
 *   tessera_memory_desc_t src_md = NULL, dst_md = NULL;
 *   tessera_primitive_t r = NULL;
 *   if (tessera_memory_desc_create_with_tag(&src_md, 4, dims, TESSERA_F32, "nchw") ||
 *       tessera_memory_desc_create_with_tag(&dst_md, 4, dims, TESSERA_BF16, "nChw16c") ||
 *       tessera_reorder_create(&r, src_md, dst_md, NULL)) {
 *     fprintf(stderr, "tessera: %s\n", tessera_last_error_message());
 *   }
 *   tessera_exec_arg args[] = {{TESSERA_ARG_FROM, src_ptr, NULL}, {TESSERA_ARG_TO, dst_ptr, NULL}};
 *   tessera_status s = tessera_primitive_execute(r, 2, args);
 *   tessera_primitive_destroy(r);
 *   tessera_memory_desc_destroy(dst_md);
 *   tessera_memory_desc_destroy(src_md);
 *
 * Errors: every function that can fail returns a tessera_status; TESSERA_SUCCESS is 0. On failure
 * tessera_last_error_message() returns the reason (for a failure inside the library, the C++
 * API's message verbatim) until the next call of a function returning tessera_status on the same
 * thread; each of them first clears it, so after a success it is "". A function that creates a
 * handle stores NULL in its out parameter when it fails. NULL handles and pointers, and enum values
 * outside their lists, are errors (TESSERA_INVALID_ARGUMENT), never a crash. A failed execution
 * leaves the destination untouched.
 *
 * Ownership: each *_create returns a handle the caller owns and releases with the matching
 * *_destroy (which accepts NULL). A primitive copies what it needs from the descriptors and the
 * attributes given to its create: they may be destroyed right after. Tensor buffers are always the
 * caller's; Tessera never keeps a pointer to them after tessera_primitive_execute returns.
 *
 * Threads: descriptors and primitives are immutable after creation; queries and executions may
 * run on any number of threads at once. An attribute object must not be modified while another
 * thread uses it. The error message is per thread.
 *
 * Semantics (dims, tags, strides, types, scales and zero points, softmax algorithms) are the C++
 * API's: docs/c_api.md maps each C name to it.
 */
#ifndef TESSERA_C_TESSERA_H_
#define TESSERA_C_TESSERA_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The largest number of dims a descriptor has. */
#define TESSERA_MAX_NDIMS 12

typedef enum tessera_status {
  TESSERA_SUCCESS = 0,
  TESSERA_INVALID_ARGUMENT = 1,    /* a bad value: dims, tag, type, mask, argument, handle */
  TESSERA_NOT_FOUND = 2,           /* e.g. a descriptor whose layout no tag names */
  TESSERA_FAILED_PRECONDITION = 3, /* valid, but not in the current state */
  TESSERA_UNIMPLEMENTED = 4,       /* valid, but Tessera does not implement it */
  TESSERA_OUT_OF_MEMORY = 5,
  TESSERA_INTERNAL = 6             /* a bug in Tessera: please report it with the message */
} tessera_status;

/* Element types (the C++ tessera::data_type). */
typedef enum tessera_data_type {
  TESSERA_DATA_TYPE_UNDEF = 0,
  TESSERA_F32 = 1,
  TESSERA_F64 = 2,
  TESSERA_BF16 = 3,
  TESSERA_F16 = 4,
  TESSERA_F8_E5M2 = 5,
  TESSERA_F8_E4M3 = 6,
  TESSERA_S32 = 7,
  TESSERA_S8 = 8,
  TESSERA_U8 = 9
} tessera_data_type;

/* Execution argument kinds (the C++ tessera::arg). */
typedef enum tessera_arg {
  TESSERA_ARG_SRC = 0,
  TESSERA_ARG_DST = 1,
  TESSERA_ARG_DIFF_SRC = 2,
  TESSERA_ARG_DIFF_DST = 3,
  TESSERA_ARG_SRC_SCALES = 4,      /* f32 values */
  TESSERA_ARG_DST_SCALES = 5,      /* f32 values */
  TESSERA_ARG_SRC_ZERO_POINTS = 6, /* int32 values */
  TESSERA_ARG_DST_ZERO_POINTS = 7, /* int32 values */
  TESSERA_ARG_ATTR_ROUNDING_SEED = 8, /* int32, one value (stochastic rounding's seed) */
  TESSERA_ARG_FROM = TESSERA_ARG_SRC, /* the reorder's names */
  TESSERA_ARG_TO = TESSERA_ARG_DST
} tessera_arg;

typedef enum tessera_softmax_alg {
  TESSERA_SOFTMAX = 0,
  TESSERA_LOGSOFTMAX = 1,
  TESSERA_SOFTMAX_INF_AS_ZERO = 2 /* softmax; a row that is all -Inf gives 0, not NaN */
} tessera_softmax_alg;

typedef struct tessera_memory_desc* tessera_memory_desc_t;
typedef const struct tessera_memory_desc* const_tessera_memory_desc_t;
typedef struct tessera_primitive_attr* tessera_primitive_attr_t;
typedef const struct tessera_primitive_attr* const_tessera_primitive_attr_t;
typedef struct tessera_primitive* tessera_primitive_t;
typedef const struct tessera_primitive* const_tessera_primitive_t;

/* One execution argument. `md` may be NULL: the argument then has the descriptor the primitive
 * expects (for src, dst and the diff_* tensors the one it was created with; for scales and zero
 * points a dense vector of as many values as the attribute's mask asks for). A non-NULL `md` is
 * checked against that expectation, as in the C++ API. */
typedef struct tessera_exec_arg {
  tessera_arg kind;
  void* data;
  const_tessera_memory_desc_t md;
} tessera_exec_arg;

/* ---- Errors and version ---- */

/* The reason of this thread's last failure; "" after a success. Never NULL; valid until the next
 * call of a function returning tessera_status on this thread. */
const char* tessera_last_error_message(void);
/* "INVALID_ARGUMENT", ...; "UNKNOWN" for a value outside the list. Static storage. */
const char* tessera_status_name(tessera_status status);
/* "0.1.0". Static storage. */
const char* tessera_version(void);

/* ---- Memory descriptors ---- */

/* From dims, a type and a format tag: "nchw", "nChw16c", "ab", "any" (a descriptor a primitive
 * replaces with a concrete layout), ... `dims` holds ndims values (may be NULL when ndims is 0). */
tessera_status tessera_memory_desc_create_with_tag(tessera_memory_desc_t* md, int ndims,
                                                   const int64_t* dims, tessera_data_type type,
                                                   const char* tag);
/* A plain layout from dims and strides in elements (ndims values each). */
tessera_status tessera_memory_desc_create_with_strides(tessera_memory_desc_t* md, int ndims,
                                                       const int64_t* dims,
                                                       tessera_data_type type,
                                                       const int64_t* strides);
tessera_status tessera_memory_desc_clone(tessera_memory_desc_t* md,
                                         const_tessera_memory_desc_t source);
void tessera_memory_desc_destroy(tessera_memory_desc_t md);

/* Bytes a buffer must hold, padding included (oneDNN's size query); 0 for "any". */
tessera_status tessera_memory_desc_get_size(const_tessera_memory_desc_t md, size_t* bytes);
tessera_status tessera_memory_desc_get_ndims(const_tessera_memory_desc_t md, int* ndims);
/* Writes ndims values; fails when `capacity` (the entries `dims` holds) is smaller. */
tessera_status tessera_memory_desc_get_dims(const_tessera_memory_desc_t md, int capacity,
                                            int64_t* dims);
/* The outer stride of each dim in elements (the blocking's strides; for a plain layout, the
 * strides). Writes ndims values; fails when `capacity` is smaller or the descriptor is "any". */
tessera_status tessera_memory_desc_get_strides(const_tessera_memory_desc_t md, int capacity,
                                               int64_t* strides);
tessera_status tessera_memory_desc_get_data_type(const_tessera_memory_desc_t md,
                                                 tessera_data_type* type);
/* *equal = 1 when both describe the same layout and type, else 0. */
tessera_status tessera_memory_desc_equal(const_tessera_memory_desc_t a,
                                         const_tessera_memory_desc_t b, int* equal);
/* The oneDNN verbose form, e.g. "f32:p:blocked:aBcd16b:f0", written NUL-terminated into `text`
 * when it fits in `capacity` bytes; `*length` (may be NULL) receives strlen of the full form.
 * text NULL with capacity 0 only asks for the length. */
tessera_status tessera_memory_desc_to_string(const_tessera_memory_desc_t md, char* text,
                                             size_t capacity, size_t* length);

/* ---- Attributes ---- */

/* An empty attribute set: no scales, no zero points, no output scales, no post-op. */
tessera_status tessera_primitive_attr_create(tessera_primitive_attr_t* attr);
void tessera_primitive_attr_destroy(tessera_primitive_attr_t attr);
/* Scales given at execution (TESSERA_ARG_SRC_SCALES / TESSERA_ARG_DST_SCALES): `which` is
 * TESSERA_ARG_SRC or TESSERA_ARG_DST; mask bit d: one value per index of dim d, 0: one value. */
tessera_status tessera_primitive_attr_set_scales(tessera_primitive_attr_t attr, tessera_arg which,
                                                 int mask);
/* Zero points given at execution (TESSERA_ARG_*_ZERO_POINTS), as above. */
tessera_status tessera_primitive_attr_set_zero_points(tessera_primitive_attr_t attr,
                                                      tessera_arg which, int mask);
/* oneDNN 2.x output scales: `count` values known now (copied). */
tessera_status tessera_primitive_attr_set_output_scales(tessera_primitive_attr_t attr, int mask,
                                                        int64_t count, const float* values);
/* The sum post-op: dst = ... + beta * (dst - zero_point). */
tessera_status tessera_primitive_attr_set_post_op_sum(tessera_primitive_attr_t attr, float beta,
                                                      int32_t zero_point);
/* Tessera's own: create chooses only among kernels whose name contains `filter` ("ref",
 * "avx2", "xsimd:avx512bw:dense"); "" (the default) allows all. Copied. */
tessera_status tessera_primitive_attr_set_impl_filter(tessera_primitive_attr_t attr,
                                                      const char* filter);

/* ---- Primitives ---- */

/* `attr` may be NULL (no attributes) in every create. */
tessera_status tessera_reorder_create(tessera_primitive_t* primitive,
                                      const_tessera_memory_desc_t src,
                                      const_tessera_memory_desc_t dst,
                                      const_tessera_primitive_attr_t attr);
/* dst may be "any": it then takes src's layout; query it with tessera_primitive_get_desc. */
tessera_status tessera_softmax_forward_create(tessera_primitive_t* primitive,
                                              tessera_softmax_alg alg,
                                              const_tessera_memory_desc_t src,
                                              const_tessera_memory_desc_t dst, int axis,
                                              const_tessera_primitive_attr_t attr);
/* diff_src may be "any": it then takes diff_dst's layout. */
tessera_status tessera_softmax_backward_create(tessera_primitive_t* primitive,
                                               tessera_softmax_alg alg,
                                               const_tessera_memory_desc_t diff_src,
                                               const_tessera_memory_desc_t diff_dst,
                                               const_tessera_memory_desc_t dst, int axis,
                                               const_tessera_primitive_attr_t attr);
void tessera_primitive_destroy(tessera_primitive_t primitive);

/* Runs the primitive on `nargs` arguments, each kind at most once. A reorder reads FROM, TO and
 * the scales and zero points its attributes declare; a softmax forward SRC, DST (may be SRC's
 * buffer) and its scales; a softmax backward DST, DIFF_DST and DIFF_SRC. */
tessera_status tessera_primitive_execute(const_tessera_primitive_t primitive, int nargs,
                                         const tessera_exec_arg* args);

/* The kernel chosen at creation, e.g. "xsimd:avx512bw:transpose16x16"; valid while the primitive
 * lives. */
tessera_status tessera_primitive_get_impl_name(const_tessera_primitive_t primitive,
                                               const char** name);
/* A descriptor the caller owns (and destroys), equal to the one the primitive expects for
 * `which`. */
tessera_status tessera_primitive_get_desc(const_tessera_primitive_t primitive, tessera_arg which,
                                          tessera_memory_desc_t* md);

#ifdef __cplusplus
}
#endif

#endif /* TESSERA_C_TESSERA_H_ */
