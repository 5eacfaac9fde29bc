/* A program outside the build: compiled against the installed header, linked with libtessera.so
 * through `pkg-config --cflags --libs tessera`. Reorders a 2x3 matrix to its transpose and prints
 * the library's version. */
#include <stdio.h>

#include <tessera/c/tessera.h>

int main(void) {
  const int64_t dims[2] = {2, 3};
  const float src[6] = {1, 2, 3, 4, 5, 6};
  float dst[6] = {0};
  tessera_memory_desc_t src_md = NULL, dst_md = NULL;
  tessera_primitive_t reorder = NULL;
  if (tessera_memory_desc_create_with_tag(&src_md, 2, dims, TESSERA_F32, "ab") ||
      tessera_memory_desc_create_with_tag(&dst_md, 2, dims, TESSERA_F32, "ba") ||
      tessera_reorder_create(&reorder, src_md, dst_md, NULL)) {
    fprintf(stderr, "tessera: %s\n", tessera_last_error_message());
    return 1;
  }
  const tessera_exec_arg args[2] = {{TESSERA_ARG_FROM, (void*)src, NULL},
                                    {TESSERA_ARG_TO, dst, NULL}};
  if (tessera_primitive_execute(reorder, 2, args)) {
    fprintf(stderr, "tessera: %s\n", tessera_last_error_message());
    return 1;
  }
  tessera_primitive_destroy(reorder);
  tessera_memory_desc_destroy(dst_md);
  tessera_memory_desc_destroy(src_md);
  /* "ba" stores column by column: 1 4 2 5 3 6. */
  printf("%s %g %g %g %g %g %g\n", tessera_version(), dst[0], dst[1], dst[2], dst[3], dst[4],
         dst[5]);
  return 0;
}
