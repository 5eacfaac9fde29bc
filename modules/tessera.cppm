// Module tessera: everything public, in one import.
//   import tessera;
export module tessera;
export import tessera.core;
export import tessera.formats;
export import tessera.simd;
export import tessera.primitives;
