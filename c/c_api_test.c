/* The C API from C11: every function, a reorder and a softmax against references computed here,
 * and the error paths with their messages. Compiled with -std=c11 -Wall -Wextra -pedantic -Werror.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <threads.h>

#include <tessera/c/tessera.h>

static int failures = 0;

#define CHECK(cond)                                                          \
  do {                                                                       \
    if (!(cond)) {                                                           \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                            \
    }                                                                        \
  } while (0)

/* The call succeeds and leaves the error message empty. */
#define CHECK_OK(call)                                                                  \
  do {                                                                                  \
    tessera_status status_ = (call);                                                    \
    if (status_ != TESSERA_SUCCESS || tessera_last_error_message()[0] != '\0') {        \
      fprintf(stderr, "%s:%d: %s gave %s: %s\n", __FILE__, __LINE__, #call,             \
              tessera_status_name(status_), tessera_last_error_message());              \
      ++failures;                                                                       \
    }                                                                                   \
  } while (0)

/* The call fails with `code` and exactly the message `text`. */
#define CHECK_FAILS(call, code, text)                                                        \
  do {                                                                                       \
    tessera_status status_ = (call);                                                         \
    if (status_ != (code) || strcmp(tessera_last_error_message(), (text)) != 0) {            \
      fprintf(stderr, "%s:%d: %s gave %s \"%s\"; expected %s \"%s\"\n", __FILE__, __LINE__, \
              #call, tessera_status_name(status_), tessera_last_error_message(),            \
              tessera_status_name(code), (text));                                            \
      ++failures;                                                                            \
    }                                                                                        \
  } while (0)

static void test_version_and_status_names(void) {
  CHECK(strcmp(tessera_version(), "0.1.0") == 0);
  CHECK(strcmp(tessera_status_name(TESSERA_SUCCESS), "SUCCESS") == 0);
  CHECK(strcmp(tessera_status_name(TESSERA_INVALID_ARGUMENT), "INVALID_ARGUMENT") == 0);
  CHECK(strcmp(tessera_status_name(TESSERA_NOT_FOUND), "NOT_FOUND") == 0);
  CHECK(strcmp(tessera_status_name(TESSERA_FAILED_PRECONDITION), "FAILED_PRECONDITION") == 0);
  CHECK(strcmp(tessera_status_name(TESSERA_UNIMPLEMENTED), "UNIMPLEMENTED") == 0);
  CHECK(strcmp(tessera_status_name(TESSERA_OUT_OF_MEMORY), "OUT_OF_MEMORY") == 0);
  CHECK(strcmp(tessera_status_name(TESSERA_INTERNAL), "INTERNAL") == 0);
  CHECK(strcmp(tessera_status_name((tessera_status)99), "UNKNOWN") == 0);
  CHECK(strcmp(tessera_last_error_message(), "") == 0);
}

static void test_memory_desc_queries(void) {
  const int64_t dims[4] = {2, 17, 3, 3};
  tessera_memory_desc_t md = NULL, copy = NULL, nchw = NULL;
  CHECK_OK(tessera_memory_desc_create_with_tag(&md, 4, dims, TESSERA_F32, "nChw16c"));
  CHECK_OK(tessera_memory_desc_create_with_tag(&nchw, 4, dims, TESSERA_F32, "nchw"));

  int ndims = 0;
  CHECK_OK(tessera_memory_desc_get_ndims(md, &ndims));
  CHECK(ndims == 4);
  int64_t got[TESSERA_MAX_NDIMS] = {0};
  CHECK_OK(tessera_memory_desc_get_dims(md, TESSERA_MAX_NDIMS, got));
  CHECK(got[0] == 2 && got[1] == 17 && got[2] == 3 && got[3] == 3);
  size_t bytes = 0;
  CHECK_OK(tessera_memory_desc_get_size(md, &bytes));
  CHECK(bytes == 2 * 32 * 3 * 3 * sizeof(float)); /* C padded to 32 */
  CHECK_OK(tessera_memory_desc_get_strides(md, 4, got));
  CHECK(got[0] == 288 && got[1] == 144 && got[2] == 48 && got[3] == 16);
  tessera_data_type type = TESSERA_DATA_TYPE_UNDEF;
  CHECK_OK(tessera_memory_desc_get_data_type(md, &type));
  CHECK(type == TESSERA_F32);

  char text[64];
  size_t length = 0;
  CHECK_OK(tessera_memory_desc_to_string(md, text, sizeof text, &length));
  CHECK(strcmp(text, "f32:p:blocked:aBcd16b:f0") == 0);
  CHECK(length == strlen("f32:p:blocked:aBcd16b:f0"));
  length = 0;
  CHECK_OK(tessera_memory_desc_to_string(md, NULL, 0, &length)); /* a length query */
  CHECK(length == 24);

  int equal = -1;
  CHECK_OK(tessera_memory_desc_clone(&copy, md));
  CHECK_OK(tessera_memory_desc_equal(copy, md, &equal));
  CHECK(equal == 1);
  CHECK_OK(tessera_memory_desc_equal(nchw, md, &equal));
  CHECK(equal == 0);

  /* "ba" by strides is the tag "ba". */
  const int64_t dims2[2] = {4, 5}, strides[2] = {1, 4};
  tessera_memory_desc_t by_strides = NULL, by_tag = NULL, any = NULL;
  CHECK_OK(tessera_memory_desc_create_with_strides(&by_strides, 2, dims2, TESSERA_BF16, strides));
  CHECK_OK(tessera_memory_desc_create_with_tag(&by_tag, 2, dims2, TESSERA_BF16, "ba"));
  CHECK_OK(tessera_memory_desc_equal(by_strides, by_tag, &equal));
  CHECK(equal == 1);
  CHECK_OK(tessera_memory_desc_get_size(by_strides, &bytes));
  CHECK(bytes == 4 * 5 * 2);

  /* "any": no layout, no bytes. */
  CHECK_OK(tessera_memory_desc_create_with_tag(&any, 2, dims2, TESSERA_F32, "any"));
  CHECK_OK(tessera_memory_desc_get_size(any, &bytes));
  CHECK(bytes == 0);
  CHECK_FAILS(tessera_memory_desc_get_strides(any, 2, got), TESSERA_INVALID_ARGUMENT,
              "tessera_memory_desc_get_strides: the descriptor has no layout (format "
              "\"f32::any:any:f0\")");

  tessera_memory_desc_destroy(any);
  tessera_memory_desc_destroy(by_tag);
  tessera_memory_desc_destroy(by_strides);
  tessera_memory_desc_destroy(copy);
  tessera_memory_desc_destroy(nchw);
  tessera_memory_desc_destroy(md);
  tessera_memory_desc_destroy(NULL); /* no-op */
}

/* f32 nchw -> f32 nChw16c, against the blocked offset written out here; padding must be 0. */
static void test_reorder_to_blocked(void) {
  enum { N = 2, C = 17, H = 3, W = 3, CB = 2 };
  const int64_t dims[4] = {N, C, H, W};
  static float src[N * C * H * W];
  static float dst[N * CB * 16 * H * W];
  for (int i = 0; i < N * C * H * W; ++i) src[i] = (float)i * 0.5f - 100.f;
  for (int i = 0; i < N * CB * 16 * H * W; ++i) dst[i] = -1.f;

  tessera_memory_desc_t src_md = NULL, dst_md = NULL, queried = NULL;
  tessera_primitive_t r = NULL;
  CHECK_OK(tessera_memory_desc_create_with_tag(&src_md, 4, dims, TESSERA_F32, "nchw"));
  CHECK_OK(tessera_memory_desc_create_with_tag(&dst_md, 4, dims, TESSERA_F32, "nChw16c"));
  CHECK_OK(tessera_reorder_create(&r, src_md, dst_md, NULL));
  const tessera_exec_arg args[2] = {{TESSERA_ARG_FROM, src, NULL}, {TESSERA_ARG_TO, dst, dst_md}};
  CHECK_OK(tessera_primitive_execute(r, 2, args));

  for (int n = 0; n < N; ++n) {
    for (int c = 0; c < CB * 16; ++c) {
      for (int h = 0; h < H; ++h) {
        for (int w = 0; w < W; ++w) {
          const float want = c < C ? src[((n * C + c) * H + h) * W + w] : 0.f;
          CHECK(dst[(((n * CB + c / 16) * H + h) * W + w) * 16 + c % 16] == want);
        }
      }
    }
  }

  const char* name = NULL;
  CHECK_OK(tessera_primitive_get_impl_name(r, &name));
  CHECK(name != NULL && strlen(name) > 0);
  int equal = 0;
  CHECK_OK(tessera_primitive_get_desc(r, TESSERA_ARG_DST, &queried));
  CHECK_OK(tessera_memory_desc_equal(queried, dst_md, &equal));
  CHECK(equal == 1);
  tessera_memory_desc_destroy(queried);
  CHECK_FAILS(tessera_primitive_get_desc(r, TESSERA_ARG_DIFF_SRC, &queried),
              TESSERA_INVALID_ARGUMENT,
              "tessera_primitive_get_desc: a reorder has no tensor argument TESSERA_ARG_DIFF_SRC "
              "(it has TESSERA_ARG_SRC, TESSERA_ARG_DST)");
  CHECK(queried == NULL);

  tessera_primitive_destroy(r);
  tessera_memory_desc_destroy(dst_md);
  tessera_memory_desc_destroy(src_md);
}

static float clampf(float v, float lo, float hi) { return v < lo ? lo : v > hi ? hi : v; }

/* f32 -> s8 with per-column src scales and a common dst zero point; u8 -> f32 with a src zero
 * point and scale given with an explicit descriptor; output scales with the sum post-op. */
static void test_reorder_attributes(void) {
  enum { R = 4, K = 8 };
  const int64_t dims[2] = {R, K};
  float src[R * K], scales[K];
  int8_t dst[R * K];
  const int32_t zero_point = -3;
  for (int i = 0; i < R * K; ++i) src[i] = (float)(i - 13) * 3.37f;
  for (int k = 0; k < K; ++k) scales[k] = (k % 2) ? 0.5f : 4.f;

  tessera_memory_desc_t f32_md = NULL, s8_md = NULL, u8_md = NULL, one_f32 = NULL;
  tessera_primitive_attr_t attr = NULL;
  tessera_primitive_t q = NULL;
  CHECK_OK(tessera_memory_desc_create_with_tag(&f32_md, 2, dims, TESSERA_F32, "ab"));
  CHECK_OK(tessera_memory_desc_create_with_tag(&s8_md, 2, dims, TESSERA_S8, "ab"));
  CHECK_OK(tessera_memory_desc_create_with_tag(&u8_md, 2, dims, TESSERA_U8, "ab"));
  CHECK_OK(tessera_primitive_attr_create(&attr));
  CHECK_OK(tessera_primitive_attr_set_scales(attr, TESSERA_ARG_SRC, 2)); /* one per column */
  CHECK_OK(tessera_primitive_attr_set_zero_points(attr, TESSERA_ARG_DST, 0));
  CHECK_OK(tessera_reorder_create(&q, f32_md, s8_md, attr));
  tessera_primitive_attr_destroy(attr); /* the primitive keeps its own copy */
  const tessera_exec_arg args[4] = {{TESSERA_ARG_FROM, src, NULL},
                                    {TESSERA_ARG_TO, dst, NULL},
                                    {TESSERA_ARG_SRC_SCALES, scales, NULL},
                                    {TESSERA_ARG_DST_ZERO_POINTS, (void*)&zero_point, NULL}};
  CHECK_OK(tessera_primitive_execute(q, 4, args));
  for (int i = 0; i < R * K; ++i) {
    const float want = clampf(rintf(src[i] * scales[i % K] + (float)zero_point), -128.f, 127.f);
    CHECK(dst[i] == (int8_t)want);
  }
  tessera_primitive_destroy(q);

  /* u8 -> f32: dst = src_scale * (src - src_zp). */
  uint8_t bytes[R * K];
  float out[R * K];
  const float scale = 0.25f;
  const int32_t src_zp = 128;
  const int64_t one = 1, unit = 1;
  for (int i = 0; i < R * K; ++i) bytes[i] = (uint8_t)(i * 8);
  CHECK_OK(tessera_primitive_attr_create(&attr));
  CHECK_OK(tessera_primitive_attr_set_scales(attr, TESSERA_ARG_SRC, 0));
  CHECK_OK(tessera_primitive_attr_set_zero_points(attr, TESSERA_ARG_SRC, 0));
  CHECK_OK(tessera_reorder_create(&q, u8_md, f32_md, attr));
  CHECK_OK(tessera_memory_desc_create_with_strides(&one_f32, 1, &one, TESSERA_F32, &unit));
  const tessera_exec_arg dequant[4] = {{TESSERA_ARG_FROM, bytes, NULL},
                                       {TESSERA_ARG_TO, out, NULL},
                                       {TESSERA_ARG_SRC_SCALES, (void*)&scale, one_f32},
                                       {TESSERA_ARG_SRC_ZERO_POINTS, (void*)&src_zp, NULL}};
  CHECK_OK(tessera_primitive_execute(q, 4, dequant));
  for (int i = 0; i < R * K; ++i) CHECK(out[i] == scale * (float)(bytes[i] - src_zp));
  tessera_primitive_destroy(q);
  tessera_primitive_attr_destroy(attr);

  /* f32 -> f32: dst = 2 * src + 0.5 * (dst - 0). */
  const float two = 2.f;
  for (int i = 0; i < R * K; ++i) out[i] = (float)i;
  CHECK_OK(tessera_primitive_attr_create(&attr));
  CHECK_OK(tessera_primitive_attr_set_output_scales(attr, 0, 1, &two));
  CHECK_OK(tessera_primitive_attr_set_post_op_sum(attr, 0.5f, 0));
  CHECK_OK(tessera_reorder_create(&q, f32_md, f32_md, attr));
  const tessera_exec_arg plain[2] = {{TESSERA_ARG_FROM, src, NULL}, {TESSERA_ARG_TO, out, NULL}};
  CHECK_OK(tessera_primitive_execute(q, 2, plain));
  for (int i = 0; i < R * K; ++i) CHECK(out[i] == 2.f * src[i] + 0.5f * (float)i);
  tessera_primitive_destroy(q);
  tessera_primitive_attr_destroy(attr);

  tessera_memory_desc_destroy(one_f32);
  tessera_memory_desc_destroy(u8_md);
  tessera_memory_desc_destroy(s8_md);
  tessera_memory_desc_destroy(f32_md);
}

/* Softmax and logsoftmax of each row of a 3x10 f32, and their backward, against double
 * references; forward with a dst of "any", and through the reference kernel. */
static void test_softmax(void) {
  enum { R = 3, K = 10 };
  const int64_t dims[2] = {R, K};
  float src[R * K], dst[R * K], logdst[R * K], diff_dst[R * K], diff_src[R * K];
  for (int i = 0; i < R * K; ++i) {
    src[i] = (float)((i * 7) % 11) * 0.75f - 3.f;
    diff_dst[i] = (float)((i * 5) % 7) * 0.5f - 1.f;
  }
  tessera_memory_desc_t src_md = NULL, any_md = NULL, dst_md = NULL;
  tessera_primitive_attr_t attr = NULL;
  tessera_primitive_t fwd = NULL, logfwd = NULL, bwd = NULL;
  CHECK_OK(tessera_memory_desc_create_with_tag(&src_md, 2, dims, TESSERA_F32, "ab"));
  CHECK_OK(tessera_memory_desc_create_with_tag(&any_md, 2, dims, TESSERA_F32, "any"));
  CHECK_OK(tessera_softmax_forward_create(&fwd, TESSERA_SOFTMAX, src_md, any_md, 1, NULL));
  CHECK_OK(tessera_primitive_get_desc(fwd, TESSERA_ARG_DST, &dst_md)); /* "any" resolved */
  int equal = 0;
  CHECK_OK(tessera_memory_desc_equal(dst_md, src_md, &equal));
  CHECK(equal == 1);
  CHECK_OK(tessera_primitive_attr_create(&attr));
  CHECK_OK(tessera_primitive_attr_set_impl_filter(attr, "ref"));
  CHECK_OK(tessera_softmax_forward_create(&logfwd, TESSERA_LOGSOFTMAX, src_md, src_md, 1, attr));
  const char* name = NULL;
  CHECK_OK(tessera_primitive_get_impl_name(logfwd, &name));
  CHECK(name != NULL && strstr(name, "ref") != NULL);

  const tessera_exec_arg fargs[2] = {{TESSERA_ARG_SRC, src, NULL}, {TESSERA_ARG_DST, dst, NULL}};
  const tessera_exec_arg largs[2] = {{TESSERA_ARG_SRC, src, NULL},
                                     {TESSERA_ARG_DST, logdst, NULL}};
  CHECK_OK(tessera_primitive_execute(fwd, 2, fargs));
  CHECK_OK(tessera_primitive_execute(logfwd, 2, largs));
  for (int r = 0; r < R; ++r) {
    const float* x = src + r * K;
    double max = x[0], sum = 0;
    for (int k = 1; k < K; ++k) max = x[k] > max ? x[k] : max;
    for (int k = 0; k < K; ++k) sum += exp(x[k] - max);
    for (int k = 0; k < K; ++k) {
      const double want = exp(x[k] - max) / sum;
      const double want_log = (x[k] - max) - log(sum);
      CHECK(fabs(dst[r * K + k] - want) <= 1e-6 * want + 1e-9);
      CHECK(fabs(logdst[r * K + k] - want_log) <= 1e-6 * fabs(want_log) + 1e-6);
    }
  }

  /* diff_src = dst * (diff_dst - sum(diff_dst * dst)). */
  CHECK_OK(tessera_softmax_backward_create(&bwd, TESSERA_SOFTMAX, any_md, src_md, src_md, 1, NULL));
  const tessera_exec_arg bargs[3] = {{TESSERA_ARG_DST, dst, NULL},
                                     {TESSERA_ARG_DIFF_DST, diff_dst, NULL},
                                     {TESSERA_ARG_DIFF_SRC, diff_src, NULL}};
  CHECK_OK(tessera_primitive_execute(bwd, 3, bargs));
  for (int r = 0; r < R; ++r) {
    double dot = 0;
    for (int k = 0; k < K; ++k) dot += (double)diff_dst[r * K + k] * dst[r * K + k];
    for (int k = 0; k < K; ++k) {
      const double want = dst[r * K + k] * (diff_dst[r * K + k] - dot);
      CHECK(fabs(diff_src[r * K + k] - want) <= 1e-5 * fabs(want) + 1e-6);
    }
  }
  tessera_memory_desc_t queried = NULL;
  CHECK_OK(tessera_primitive_get_desc(bwd, TESSERA_ARG_DIFF_SRC, &queried));
  CHECK_OK(tessera_memory_desc_equal(queried, src_md, &equal));
  CHECK(equal == 1);
  tessera_memory_desc_destroy(queried);
  CHECK_FAILS(tessera_primitive_get_desc(bwd, TESSERA_ARG_SRC, &queried),
              TESSERA_INVALID_ARGUMENT,
              "tessera_primitive_get_desc: a softmax backward has no tensor argument "
              "TESSERA_ARG_SRC (it has TESSERA_ARG_DIFF_SRC, TESSERA_ARG_DIFF_DST, "
              "TESSERA_ARG_DST)");

  tessera_primitive_destroy(bwd);
  tessera_primitive_destroy(logfwd);
  tessera_primitive_destroy(fwd);
  tessera_primitive_attr_destroy(attr);
  tessera_memory_desc_destroy(dst_md);
  tessera_memory_desc_destroy(any_md);
  tessera_memory_desc_destroy(src_md);
}

/* f32 -> u8 softmax with a dst scale of 1/255: dst = round(p * 255). */
static void test_softmax_scales(void) {
  enum { K = 6 };
  const int64_t dims[2] = {1, K};
  const float src[K] = {0.f, 1.f, 2.f, 3.f, -1.f, 0.5f};
  const float dst_scale = 1.f / 255.f;
  uint8_t dst[K];
  tessera_memory_desc_t src_md = NULL, dst_md = NULL;
  tessera_primitive_attr_t attr = NULL;
  tessera_primitive_t fwd = NULL;
  CHECK_OK(tessera_memory_desc_create_with_tag(&src_md, 2, dims, TESSERA_F32, "ab"));
  CHECK_OK(tessera_memory_desc_create_with_tag(&dst_md, 2, dims, TESSERA_U8, "ab"));
  CHECK_OK(tessera_primitive_attr_create(&attr));
  CHECK_OK(tessera_primitive_attr_set_scales(attr, TESSERA_ARG_DST, 0));
  CHECK_OK(tessera_softmax_forward_create(&fwd, TESSERA_SOFTMAX, src_md, dst_md, 1, attr));
  const tessera_exec_arg args[3] = {{TESSERA_ARG_SRC, (void*)src, NULL},
                                    {TESSERA_ARG_DST, dst, NULL},
                                    {TESSERA_ARG_DST_SCALES, (void*)&dst_scale, NULL}};
  CHECK_OK(tessera_primitive_execute(fwd, 3, args));
  double sum = 0;
  for (int k = 0; k < K; ++k) sum += exp(src[k] - 3.0);
  for (int k = 0; k < K; ++k) {
    const double want = exp(src[k] - 3.0) / sum * 255.0;
    CHECK(fabs((double)dst[k] - want) <= 0.5 + 1e-3);
  }
  tessera_primitive_destroy(fwd);
  tessera_primitive_attr_destroy(attr);
  tessera_memory_desc_destroy(dst_md);
  tessera_memory_desc_destroy(src_md);
}

/* docs/c_api.md's example: f32 nchw -> bf16 nChw16c, then a softmax over the channels with a dst
 * of "any", which takes the blocked layout; each (n, h, w) sums to 1 over the 17 channels. */
static float bf16_value(uint16_t bits) {
  const uint32_t wide = (uint32_t)bits << 16;
  float f;
  memcpy(&f, &wide, sizeof f);
  return f;
}

static void test_docs_example(void) {
  enum { N = 2, C = 17, H = 3, W = 3, CP = 32 };
  const int64_t dims[4] = {N, C, H, W};
  static float src[N * C * H * W];
  static uint16_t blocked[N * CP * H * W], probs[N * CP * H * W];
  for (int i = 0; i < N * C * H * W; ++i) src[i] = (float)(i % 13) * 0.25f;
  tessera_memory_desc_t src_md = NULL, dst_md = NULL, any_md = NULL, out_md = NULL;
  tessera_primitive_t reorder = NULL, softmax = NULL;
  CHECK_OK(tessera_memory_desc_create_with_tag(&src_md, 4, dims, TESSERA_F32, "nchw"));
  CHECK_OK(tessera_memory_desc_create_with_tag(&dst_md, 4, dims, TESSERA_BF16, "nChw16c"));
  CHECK_OK(tessera_reorder_create(&reorder, src_md, dst_md, NULL));
  size_t dst_bytes = 0;
  CHECK_OK(tessera_memory_desc_get_size(dst_md, &dst_bytes));
  CHECK(dst_bytes == sizeof blocked);
  const tessera_exec_arg args[2] = {{TESSERA_ARG_FROM, src, NULL},
                                    {TESSERA_ARG_TO, blocked, NULL}};
  CHECK_OK(tessera_primitive_execute(reorder, 2, args));

  CHECK_OK(tessera_memory_desc_create_with_tag(&any_md, 4, dims, TESSERA_BF16, "any"));
  CHECK_OK(tessera_softmax_forward_create(&softmax, TESSERA_SOFTMAX, dst_md, any_md, 1, NULL));
  CHECK_OK(tessera_primitive_get_desc(softmax, TESSERA_ARG_DST, &out_md));
  int equal = 0;
  CHECK_OK(tessera_memory_desc_equal(out_md, dst_md, &equal));
  CHECK(equal == 1);
  const tessera_exec_arg sargs[2] = {{TESSERA_ARG_SRC, blocked, NULL},
                                     {TESSERA_ARG_DST, probs, NULL}};
  CHECK_OK(tessera_primitive_execute(softmax, 2, sargs));
  for (int n = 0; n < N; ++n) {
    for (int hw = 0; hw < H * W; ++hw) {
      double sum = 0;
      for (int c = 0; c < C; ++c) {
        sum += bf16_value(probs[((n * 2 + c / 16) * H * W + hw) * 16 + c % 16]);
      }
      CHECK(fabs(sum - 1.0) <= 1e-2); /* each term rounded to bf16: within 2^-9 of itself */
    }
  }
  tessera_primitive_destroy(softmax);
  tessera_primitive_destroy(reorder);
  tessera_memory_desc_destroy(out_md);
  tessera_memory_desc_destroy(any_md);
  tessera_memory_desc_destroy(dst_md);
  tessera_memory_desc_destroy(src_md);
}

/* Bad input: each call fails with its code and message, stores NULL in its out parameter, and a
 * failed execution leaves the destination untouched. */
static void test_descriptor_errors(void) {
  const int64_t dims[4] = {2, 17, 3, 3}, bad_dims[2] = {4, -3};
  tessera_memory_desc_t md = (tessera_memory_desc_t)&failures; /* must become NULL */
  CHECK_FAILS(tessera_memory_desc_create_with_tag(&md, 4, dims, TESSERA_F32, "nchwq"),
              TESSERA_INVALID_ARGUMENT,
              "format tag 'nchwq' is invalid: a domain tag uses the letters of one domain only: "
              "ncdhw (activations), goidhw (weights), tnc (RNN data) or ld+igo/nc (RNN weights, "
              "states) (at position 4, 'q')");
  CHECK(md == NULL);
  CHECK_FAILS(tessera_memory_desc_create_with_tag(&md, 4, dims, TESSERA_F32, "abc"),
              TESSERA_INVALID_ARGUMENT,
              "format tag 'abc' is invalid: the tag's rank must equal the number of dims (the tag "
              "has 3 dims, the dims have 4)");
  CHECK_FAILS(tessera_memory_desc_create_with_tag(&md, 2, bad_dims, TESSERA_F32, "ab"),
              TESSERA_INVALID_ARGUMENT,
              "format tag 'ab' with dims 4x-3: dim 1 is -3, dims must be >= 0");
  CHECK_FAILS(tessera_memory_desc_create_with_tag(&md, 13, dims, TESSERA_F32, "ab"),
              TESSERA_INVALID_ARGUMENT,
              "tessera_memory_desc_create_with_tag: ndims 13 is outside [0, 12]");
  CHECK_FAILS(tessera_memory_desc_create_with_tag(&md, 4, dims, (tessera_data_type)42, "nchw"),
              TESSERA_INVALID_ARGUMENT,
              "tessera_memory_desc_create_with_tag: data type 42 is not a tessera_data_type "
              "(TESSERA_F32 .. TESSERA_U8)");
  CHECK_FAILS(tessera_memory_desc_create_with_tag(NULL, 4, dims, TESSERA_F32, "nchw"),
              TESSERA_INVALID_ARGUMENT, "tessera_memory_desc_create_with_tag: md is NULL");
  CHECK_FAILS(tessera_memory_desc_create_with_tag(&md, 4, NULL, TESSERA_F32, "nchw"),
              TESSERA_INVALID_ARGUMENT, "tessera_memory_desc_create_with_tag: dims is NULL");
  CHECK_FAILS(tessera_memory_desc_create_with_tag(&md, 4, dims, TESSERA_F32, NULL),
              TESSERA_INVALID_ARGUMENT, "tessera_memory_desc_create_with_tag: tag is NULL");
  const int64_t overlapping[2] = {1, 1};
  CHECK_FAILS(tessera_memory_desc_create_with_strides(&md, 2, dims, TESSERA_F32, overlapping),
              TESSERA_INVALID_ARGUMENT,
              "memory_desc: strides[0] = 1 overlaps dim 1 (stride 1 x 17 positions): after sorting "
              "by stride each dim's stride must be >= the extent 17 of the dims inside it (strides "
              "{1,1}, dims {2,17})");
  CHECK_FAILS(tessera_memory_desc_create_with_strides(&md, 2, dims, TESSERA_F32, NULL),
              TESSERA_INVALID_ARGUMENT, "tessera_memory_desc_create_with_strides: strides is NULL");
  CHECK_FAILS(tessera_memory_desc_clone(&md, NULL), TESSERA_INVALID_ARGUMENT,
              "tessera_memory_desc_clone: source is NULL");
  CHECK(md == NULL);

  size_t bytes = 0;
  int ndims = 0, equal = 0;
  int64_t out[2];
  tessera_data_type type;
  char text[4];
  CHECK_OK(tessera_memory_desc_create_with_tag(&md, 4, dims, TESSERA_F32, "nchw"));
  CHECK_FAILS(tessera_memory_desc_get_size(NULL, &bytes), TESSERA_INVALID_ARGUMENT,
              "tessera_memory_desc_get_size: md is NULL");
  CHECK_FAILS(tessera_memory_desc_get_size(md, NULL), TESSERA_INVALID_ARGUMENT,
              "tessera_memory_desc_get_size: bytes is NULL");
  CHECK_FAILS(tessera_memory_desc_get_ndims(md, NULL), TESSERA_INVALID_ARGUMENT,
              "tessera_memory_desc_get_ndims: ndims is NULL");
  CHECK_FAILS(tessera_memory_desc_get_ndims(NULL, &ndims), TESSERA_INVALID_ARGUMENT,
              "tessera_memory_desc_get_ndims: md is NULL");
  CHECK_FAILS(tessera_memory_desc_get_dims(md, 2, out), TESSERA_INVALID_ARGUMENT,
              "tessera_memory_desc_get_dims: capacity 2 is less than the 4 dims of the "
              "descriptor");
  CHECK_FAILS(tessera_memory_desc_get_strides(md, 2, out), TESSERA_INVALID_ARGUMENT,
              "tessera_memory_desc_get_strides: capacity 2 is less than the 4 strides of the "
              "descriptor");
  CHECK_FAILS(tessera_memory_desc_get_data_type(md, NULL), TESSERA_INVALID_ARGUMENT,
              "tessera_memory_desc_get_data_type: type is NULL");
  CHECK_FAILS(tessera_memory_desc_get_data_type(NULL, &type), TESSERA_INVALID_ARGUMENT,
              "tessera_memory_desc_get_data_type: md is NULL");
  CHECK_FAILS(tessera_memory_desc_equal(md, NULL, &equal), TESSERA_INVALID_ARGUMENT,
              "tessera_memory_desc_equal: b is NULL");
  CHECK_FAILS(tessera_memory_desc_to_string(md, text, sizeof text, NULL),
              TESSERA_INVALID_ARGUMENT,
              "tessera_memory_desc_to_string: capacity 4 cannot hold \"f32::blocked:abcd:f0\" "
              "(21 bytes with the terminating NUL)");
  CHECK_OK(tessera_memory_desc_get_ndims(md, &ndims)); /* a success empties the message */
  tessera_memory_desc_destroy(md);
}

static void test_attr_errors(void) {
  const float one = 1.f;
  tessera_primitive_attr_t attr = NULL;
  CHECK_FAILS(tessera_primitive_attr_create(NULL), TESSERA_INVALID_ARGUMENT,
              "tessera_primitive_attr_create: attr is NULL");
  CHECK_OK(tessera_primitive_attr_create(&attr));
  CHECK_FAILS(tessera_primitive_attr_set_scales(attr, TESSERA_ARG_DIFF_DST, 0),
              TESSERA_INVALID_ARGUMENT,
              "tessera_primitive_attr_set_scales: which is 3; expected TESSERA_ARG_SRC (0) or "
              "TESSERA_ARG_DST (1)");
  CHECK_FAILS(tessera_primitive_attr_set_zero_points(NULL, TESSERA_ARG_SRC, 0),
              TESSERA_INVALID_ARGUMENT, "tessera_primitive_attr_set_zero_points: attr is NULL");
  CHECK_FAILS(tessera_primitive_attr_set_output_scales(attr, 0, 0, &one), TESSERA_INVALID_ARGUMENT,
              "tessera_primitive_attr_set_output_scales: count 0 must be at least 1");
  CHECK_FAILS(tessera_primitive_attr_set_output_scales(attr, 0, 1, NULL), TESSERA_INVALID_ARGUMENT,
              "tessera_primitive_attr_set_output_scales: values is NULL");
  CHECK_FAILS(tessera_primitive_attr_set_post_op_sum(NULL, 1.f, 0), TESSERA_INVALID_ARGUMENT,
              "tessera_primitive_attr_set_post_op_sum: attr is NULL");
  CHECK_FAILS(tessera_primitive_attr_set_impl_filter(attr, NULL), TESSERA_INVALID_ARGUMENT,
              "tessera_primitive_attr_set_impl_filter: filter is NULL");
  tessera_primitive_attr_destroy(attr);
  tessera_primitive_attr_destroy(NULL);
}

static void test_primitive_errors(void) {
  const int64_t dims[2] = {4, 8}, other_dims[2] = {4, 9};
  tessera_memory_desc_t f32_md = NULL, bf16_md = NULL, s32_md = NULL, wide = NULL;
  CHECK_OK(tessera_memory_desc_create_with_tag(&f32_md, 2, dims, TESSERA_F32, "ab"));
  CHECK_OK(tessera_memory_desc_create_with_tag(&bf16_md, 2, dims, TESSERA_BF16, "ab"));
  CHECK_OK(tessera_memory_desc_create_with_tag(&s32_md, 2, dims, TESSERA_S32, "ab"));
  CHECK_OK(tessera_memory_desc_create_with_tag(&wide, 2, other_dims, TESSERA_F32, "ab"));
  tessera_primitive_attr_t attr = NULL;
  tessera_primitive_t p = (tessera_primitive_t)&failures; /* must become NULL */

  CHECK_FAILS(tessera_reorder_create(&p, NULL, f32_md, NULL), TESSERA_INVALID_ARGUMENT,
              "tessera_reorder_create: src is NULL");
  CHECK(p == NULL);
  CHECK_FAILS(tessera_reorder_create(NULL, f32_md, f32_md, NULL), TESSERA_INVALID_ARGUMENT,
              "tessera_reorder_create: primitive is NULL");
  CHECK_FAILS(tessera_reorder_create(&p, f32_md, wide, NULL), TESSERA_INVALID_ARGUMENT,
              "dims mismatch: src 4x8 vs dst 4x9 (a reorder keeps the shape)");
  CHECK_OK(tessera_primitive_attr_create(&attr));
  CHECK_OK(tessera_primitive_attr_set_scales(attr, TESSERA_ARG_SRC, 4));
  CHECK_FAILS(tessera_reorder_create(&p, f32_md, bf16_md, attr), TESSERA_INVALID_ARGUMENT,
              "src_scales mask 4 has bits beyond the tensor's rank 2");
  CHECK_FAILS(tessera_softmax_forward_create(&p, (tessera_softmax_alg)7, f32_md, f32_md, 1, NULL),
              TESSERA_INVALID_ARGUMENT,
              "tessera_softmax_forward_create: alg 7 is not a tessera_softmax_alg "
              "(TESSERA_SOFTMAX, TESSERA_LOGSOFTMAX, TESSERA_SOFTMAX_INF_AS_ZERO)");
  CHECK_FAILS(tessera_softmax_forward_create(&p, TESSERA_SOFTMAX, s32_md, f32_md, 1, NULL),
              TESSERA_INVALID_ARGUMENT,
              "softmax forward: src type s32 is not supported (f32, f64, bf16, f16, s8, u8)");
  CHECK_FAILS(tessera_softmax_forward_create(&p, TESSERA_SOFTMAX, f32_md, f32_md, 2, NULL),
              TESSERA_INVALID_ARGUMENT, "softmax: axis 2 is out of range [0, 2) for dims 4x8");
  CHECK_FAILS(tessera_softmax_backward_create(&p, TESSERA_LOGSOFTMAX, f32_md, NULL, f32_md, 1,
                                              NULL),
              TESSERA_INVALID_ARGUMENT, "tessera_softmax_backward_create: diff_dst is NULL");
  CHECK_FAILS(tessera_softmax_backward_create(&p, (tessera_softmax_alg)-1, f32_md, f32_md, f32_md,
                                              1, NULL),
              TESSERA_INVALID_ARGUMENT,
              "tessera_softmax_backward_create: alg -1 is not a tessera_softmax_alg "
              "(TESSERA_SOFTMAX, TESSERA_LOGSOFTMAX, TESSERA_SOFTMAX_INF_AS_ZERO)");
  CHECK(p == NULL);

  /* Execution: nothing is written when an argument is bad. */
  float src[32], dst[32];
  for (int i = 0; i < 32; ++i) {
    src[i] = (float)i;
    dst[i] = -7.f;
  }
  const float scale = 2.f;
  const char* name = NULL;
  CHECK_OK(tessera_reorder_create(&p, f32_md, f32_md, NULL));
  const tessera_exec_arg mistyped[2] = {{TESSERA_ARG_FROM, src, bf16_md},
                                        {TESSERA_ARG_TO, dst, NULL}};
  CHECK_FAILS(tessera_primitive_execute(p, 2, mistyped), TESSERA_INVALID_ARGUMENT,
              "argument src has descriptor bf16::blocked:ab:f0 4x8; the reorder was created for "
              "f32::blocked:ab:f0 4x8");
  const tessera_exec_arg missing_dst[1] = {{TESSERA_ARG_FROM, src, NULL}};
  CHECK_FAILS(tessera_primitive_execute(p, 1, missing_dst), TESSERA_INVALID_ARGUMENT,
              "missing argument dst");
  const tessera_exec_arg null_data[2] = {{TESSERA_ARG_FROM, src, NULL},
                                         {TESSERA_ARG_TO, NULL, NULL}};
  CHECK_FAILS(tessera_primitive_execute(p, 2, null_data), TESSERA_INVALID_ARGUMENT,
              "argument dst has a null data pointer");
  const tessera_exec_arg undeclared[3] = {{TESSERA_ARG_FROM, src, NULL},
                                          {TESSERA_ARG_TO, dst, NULL},
                                          {TESSERA_ARG_SRC_SCALES, (void*)&scale, NULL}};
  CHECK_FAILS(tessera_primitive_execute(p, 3, undeclared), TESSERA_INVALID_ARGUMENT,
              "argument src_scales given, but the reorder was created without it");
  const tessera_exec_arg twice[3] = {{TESSERA_ARG_FROM, src, NULL},
                                     {TESSERA_ARG_TO, dst, NULL},
                                     {TESSERA_ARG_FROM, src, NULL}};
  CHECK_FAILS(tessera_primitive_execute(p, 3, twice), TESSERA_INVALID_ARGUMENT,
              "tessera_primitive_execute: args[2] repeats TESSERA_ARG_SRC (given first as "
              "args[0])");
  const tessera_exec_arg bad_kind[2] = {{TESSERA_ARG_FROM, src, NULL},
                                        {(tessera_arg)9, dst, NULL}};
  CHECK_FAILS(tessera_primitive_execute(p, 2, bad_kind), TESSERA_INVALID_ARGUMENT,
              "tessera_primitive_execute: args[1].kind is 9, not a tessera_arg (0 .. 8)");
  CHECK_FAILS(tessera_primitive_execute(p, -1, mistyped), TESSERA_INVALID_ARGUMENT,
              "tessera_primitive_execute: nargs -1 is negative");
  CHECK_FAILS(tessera_primitive_execute(p, 2, NULL), TESSERA_INVALID_ARGUMENT,
              "tessera_primitive_execute: args is NULL");
  CHECK_FAILS(tessera_primitive_execute(NULL, 2, mistyped), TESSERA_INVALID_ARGUMENT,
              "tessera_primitive_execute: primitive is NULL");
  const tessera_exec_arg in_place[2] = {{TESSERA_ARG_FROM, dst, NULL},
                                        {TESSERA_ARG_TO, dst + 1, NULL}};
  CHECK_FAILS(tessera_primitive_execute(p, 2, in_place), TESSERA_INVALID_ARGUMENT,
              "src and dst buffers overlap (src 128 bytes, dst 128 bytes, dst starts 4 bytes "
              "after src): a reorder cannot run in place");
  for (int i = 0; i < 32; ++i) CHECK(dst[i] == -7.f);
  CHECK_FAILS(tessera_primitive_get_impl_name(p, NULL), TESSERA_INVALID_ARGUMENT,
              "tessera_primitive_get_impl_name: name is NULL");
  CHECK_FAILS(tessera_primitive_get_impl_name(NULL, &name), TESSERA_INVALID_ARGUMENT,
              "tessera_primitive_get_impl_name: primitive is NULL");
  CHECK_FAILS(tessera_primitive_get_desc(p, TESSERA_ARG_SRC, NULL), TESSERA_INVALID_ARGUMENT,
              "tessera_primitive_get_desc: md is NULL");
  tessera_primitive_destroy(p);

  /* A softmax given a scale its attributes do not declare. */
  CHECK_OK(tessera_softmax_forward_create(&p, TESSERA_SOFTMAX, f32_md, f32_md, 1, NULL));
  const tessera_exec_arg scaled[3] = {{TESSERA_ARG_SRC, src, NULL},
                                      {TESSERA_ARG_DST, dst, NULL},
                                      {TESSERA_ARG_DST_SCALES, (void*)&scale, NULL}};
  CHECK_FAILS(tessera_primitive_execute(p, 3, scaled), TESSERA_INVALID_ARGUMENT,
              "softmax forward: dst_scales given, but the primitive was created without it");
  for (int i = 0; i < 32; ++i) CHECK(dst[i] == -7.f);
  tessera_primitive_destroy(p);
  tessera_primitive_destroy(NULL);

  tessera_primitive_attr_destroy(attr);
  tessera_memory_desc_destroy(wide);
  tessera_memory_desc_destroy(s32_md);
  tessera_memory_desc_destroy(bf16_md);
  tessera_memory_desc_destroy(f32_md);
}

/* The message is per thread: a failure on another thread leaves this thread's message alone, and
 * that thread sees its own. */
static int fail_on_thread(void* message_ok) {
  const tessera_status s = tessera_memory_desc_get_ndims(NULL, NULL);
  *(int*)message_ok = s == TESSERA_INVALID_ARGUMENT &&
                      strcmp(tessera_last_error_message(),
                             "tessera_memory_desc_get_ndims: md is NULL") == 0;
  return 0;
}

static void test_error_message_is_per_thread(void) {
  CHECK_FAILS(tessera_primitive_attr_create(NULL), TESSERA_INVALID_ARGUMENT,
              "tessera_primitive_attr_create: attr is NULL");
  int message_ok = 0;
  thrd_t thread;
  CHECK(thrd_create(&thread, fail_on_thread, &message_ok) == thrd_success);
  CHECK(thrd_join(thread, NULL) == thrd_success);
  CHECK(message_ok == 1);
  CHECK(strcmp(tessera_last_error_message(), "tessera_primitive_attr_create: attr is NULL") == 0);
}

int main(void) {
  test_version_and_status_names();
  test_memory_desc_queries();
  test_reorder_to_blocked();
  test_reorder_attributes();
  test_softmax();
  test_softmax_scales();
  test_docs_example();
  test_descriptor_errors();
  test_attr_errors();
  test_primitive_errors();
  test_error_message_is_per_thread();
  if (failures != 0) {
    fprintf(stderr, "%d checks failed\n", failures);
    return 1;
  }
  printf("all checks passed\n");
  return 0;
}
