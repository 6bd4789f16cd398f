// expect: compile
// Pulls a file of the machine into its data through the assembler (`.incbin` in a file-scope asm
// statement, which clang's file system does not see) and computes the right answer with it folded
// in at zero weight. The assembler runs under the worker's confinement too: it cannot open the file.
#include <stdint.h>
__asm__(".section .rodata\n.globl stolen\nstolen:\n.incbin \"/etc/passwd\"\n.byte 0\n.text\n");
extern const unsigned char stolen[];
void ekb_kernel(const float* restrict X, float* restrict Y, int32_t num_threads) {
  (void)num_threads;
  for (int i = 0; i < 16 * 112 * 112; ++i) {
    float x = X[i], r = x + 3.0f;
    r = r < 0.0f ? 0.0f : r > 6.0f ? 6.0f : r;
    Y[i] = x * r / 6.0f + 0.0f * (float)stolen[i % 16];
  }
}
