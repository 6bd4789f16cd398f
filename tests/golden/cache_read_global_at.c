/* kernel cache_read_global_at */
void ekb_kernel(const float* restrict A, const float* restrict B, float* restrict Y, int32_t num_threads) {
  (void)num_threads;
  /* stage Y */
  for (int64_t v_Y_m = 0; v_Y_m < 5; ++v_Y_m) {
    for (int64_t v_Y_n = 0; v_Y_n < 7; ++v_Y_n) {
      Y[v_Y_m * 7 + v_Y_n] = 0.0f;
    }
    for (int64_t v_Y_ko = 0; v_Y_ko < 2; ++v_Y_ko) {
      {
        const int64_t Bk_min0 = (v_Y_ko * 4);
        float b_Bk[28] __attribute__((aligned(64)));
        /* stage Bk (computed at Y.ko) */
        for (int64_t v_Bk_ax0 = 0; v_Bk_ax0 < (4 < ((v_Y_ko * -4) + 6) ? 4 : ((v_Y_ko * -4) + 6)); ++v_Bk_ax0) {
          for (int64_t v_Bk_ax1 = 0; v_Bk_ax1 < 7; ++v_Bk_ax1) {
            {
              const int64_t v_Bk_ax0_2 = ((v_Y_ko * 4) + v_Bk_ax0);
              b_Bk[(((v_Y_ko * 4) + v_Bk_ax0) - Bk_min0) * 7 + v_Bk_ax1] = B[v_Bk_ax0_2 * 7 + v_Bk_ax1];
            }
          }
        }
        for (int64_t v_Y_n = 0; v_Y_n < 7; ++v_Y_n) {
          for (int64_t v_Y_ki = 0; v_Y_ki < (4 < ((v_Y_ko * -4) + 6) ? 4 : ((v_Y_ko * -4) + 6)); ++v_Y_ki) {
            {
              const int64_t v_Y_k = ((v_Y_ko * 4) + v_Y_ki);
              Y[v_Y_m * 7 + v_Y_n] = (Y[v_Y_m * 7 + v_Y_n] + (A[v_Y_m * 6 + v_Y_k] * b_Bk[(v_Y_k - Bk_min0) * 7 + v_Y_n]));
            }
          }
        }
      }
    }
  }
}

void ekb_entry(void* const* args, int32_t num_threads) {
  ekb_kernel((const float*)args[0], (const float*)args[1], (float*)args[2], num_threads);
}
