/* kernel split_pad */
void ekb_kernel(const float* restrict X, float* restrict Y, int32_t num_threads) {
  (void)num_threads;
  {
    float* b_T = (float*)ekb_alloc((size_t)160 * sizeof(float));
    /* stage T */
    for (int64_t v_T_i = 0; v_T_i < 10; ++v_T_i) {
      for (int64_t v_T_jo = 0; v_T_jo < 4; ++v_T_jo) {
        for (int64_t v_T_ji = 0; v_T_ji < 4; ++v_T_ji) {
          {
            const int64_t v_T_j = (((v_T_jo * 4) + v_T_ji) < 12 ? ((v_T_jo * 4) + v_T_ji) : 12);
            b_T[v_T_i * 16 + ((v_T_jo * 4) + v_T_ji)] = (X[v_T_i * 13 + v_T_j] * 2.0f);
          }
        }
      }
    }
    /* stage Y */
    for (int64_t v_Y_i = 0; v_Y_i < 10; ++v_Y_i) {
      for (int64_t v_Y_j = 0; v_Y_j < 13; ++v_Y_j) {
        Y[v_Y_i * 13 + v_Y_j] = (b_T[v_Y_i * 16 + v_Y_j] + 1.0f);
      }
    }
    free(b_T);
  }
}

void ekb_entry(void* const* args, int32_t num_threads) {
  ekb_kernel((const float*)args[0], (float*)args[1], num_threads);
}
