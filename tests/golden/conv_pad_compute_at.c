/* kernel conv_pad_compute_at */
void ekb_kernel(const float* restrict X, const float* restrict F, float* restrict Y, int32_t num_threads) {
  (void)num_threads;
  /* stage Y */
  for (int64_t v_Y_io = 0; v_Y_io < 3; ++v_Y_io) {
    {
      const int64_t P_min0 = (v_Y_io * 4);
      float b_P[90] __attribute__((aligned(64)));
      /* stage P (computed at Y.io) */
      for (int64_t v_P_h = 0; v_P_h < (6 < ((v_Y_io * -4) + 12) ? 6 : ((v_Y_io * -4) + 12)); ++v_P_h) {
        for (int64_t v_P_w = 0; v_P_w < 15; ++v_P_w) {
          {
            const int64_t v_P_h_2 = ((v_Y_io * 4) + v_P_h);
            b_P[(((v_Y_io * 4) + v_P_h) - P_min0) * 15 + v_P_w] = (((((v_P_h_2 >= 1) ? (v_P_h_2 <= 10) : 0) ? (v_P_w >= 1) : 0) ? (v_P_w <= 13) : 0) ? X[(v_P_h_2 - 1) * 13 + (v_P_w - 1)] : 0.0f);
          }
        }
      }
      for (int64_t v_Y_ii = 0; v_Y_ii < (4 < ((v_Y_io * -4) + 10) ? 4 : ((v_Y_io * -4) + 10)); ++v_Y_ii) {
        for (int64_t v_Y_j = 0; v_Y_j < 13; ++v_Y_j) {
          float b_racc0;
          {
            const int64_t v_Y_i = ((v_Y_io * 4) + v_Y_ii);
            b_racc0 = 0.0f;
          }
          for (int64_t v_Y_di = 0; v_Y_di < 3; ++v_Y_di) {
            {
              const int64_t v_Y_i = ((v_Y_io * 4) + v_Y_ii);
              b_racc0 = (b_racc0 + (b_P[((v_Y_i + v_Y_di) - P_min0) * 15 + v_Y_j] * F[v_Y_di * 3 + 0]));
            }
            {
              const int64_t v_Y_i = ((v_Y_io * 4) + v_Y_ii);
              b_racc0 = (b_racc0 + (b_P[((v_Y_i + v_Y_di) - P_min0) * 15 + (v_Y_j + 1)] * F[v_Y_di * 3 + 1]));
            }
            {
              const int64_t v_Y_i = ((v_Y_io * 4) + v_Y_ii);
              b_racc0 = (b_racc0 + (b_P[((v_Y_i + v_Y_di) - P_min0) * 15 + (v_Y_j + 2)] * F[v_Y_di * 3 + 2]));
            }
          }
          Y[((v_Y_io * 4) + v_Y_ii) * 13 + v_Y_j] = b_racc0;
        }
      }
    }
  }
}

void ekb_entry(void* const* args, int32_t num_threads) {
  ekb_kernel((const float*)args[0], (const float*)args[1], (float*)args[2], num_threads);
}
