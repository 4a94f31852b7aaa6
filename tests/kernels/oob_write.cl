/* Deliberately broken: each work-item writes one element past the end of `out` when given n
 * work-items for an n-element buffer. The emulator suite runs it under Oclgrind to prove that
 * an out-of-bounds write is detected and reported (tests/test_emulator.cpp). */
__kernel void oob_write(__global uint* out, uint n) {
  uint i = get_global_id(0);
  if (i < n) out[i + 1] = i;
}
