/* kernel pack */
void ekb_kernel(const float* restrict A, const float* restrict B, float* restrict Y, int32_t num_threads) {
  (void)num_threads;
  {
    float* b_B_packed = (float*)ekb_alloc((size_t)48 * sizeof(float));
    /* stage B_packed */
    for (int64_t v_B_packed_ax0 = 0; v_B_packed_ax0 < 2; ++v_B_packed_ax0) {
      for (int64_t v_B_packed_ax1 = 0; v_B_packed_ax1 < 6; ++v_B_packed_ax1) {
        for (int64_t v_B_packed_ax2 = 0; v_B_packed_ax2 < 4; ++v_B_packed_ax2) {
          b_B_packed[v_B_packed_ax0 * 24 + v_B_packed_ax1 * 4 + v_B_packed_ax2] = ((((v_B_packed_ax0 * 4) + v_B_packed_ax2) < 7) ? B[v_B_packed_ax1 * 7 + ((v_B_packed_ax0 * 4) + v_B_packed_ax2)] : 0.0f);
        }
      }
    }
    /* stage Y */
    for (int64_t v_Y_m = 0; v_Y_m < 5; ++v_Y_m) {
      for (int64_t v_Y_n = 0; v_Y_n < 7; ++v_Y_n) {
        float b_racc0;
        b_racc0 = 0.0f;
        for (int64_t v_Y_k = 0; v_Y_k < 6; ++v_Y_k) {
          b_racc0 = (b_racc0 + (A[v_Y_m * 6 + v_Y_k] * b_B_packed[((int64_t)ekb_fdiv(v_Y_n, 4)) * 24 + v_Y_k * 4 + ((int64_t)ekb_fmod(v_Y_n, 4))]));
        }
        Y[v_Y_m * 7 + v_Y_n] = b_racc0;
      }
    }
    free(b_B_packed);
  }
}

void ekb_entry(void* const* args, int32_t num_threads) {
  ekb_kernel((const float*)args[0], (const float*)args[1], (float*)args[2], num_threads);
}
