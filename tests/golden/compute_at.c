/* kernel compute_at */
void ekb_kernel(const float* restrict X, float* restrict Y, int32_t num_threads) {
  (void)num_threads;
  /* stage Y */
  for (int64_t v_Y_i = 0; v_Y_i < 10; ++v_Y_i) {
    for (int64_t v_Y_jo = 0; v_Y_jo < 4; ++v_Y_jo) {
      {
        const int64_t T_min0 = v_Y_i;
        const int64_t T_min1 = (v_Y_jo * 4);
        float b_T[6] __attribute__((aligned(64)));
        /* stage T (computed at Y.jo) */
        for (int64_t v_T_j = 0; v_T_j < ((int64_t)ekb_max_i(((4 < ((v_Y_jo * -4) + 13) ? 4 : ((v_Y_jo * -4) + 13)) > (5 < ((v_Y_jo * -4) + 14) ? 5 : ((v_Y_jo * -4) + 14)) ? (4 < ((v_Y_jo * -4) + 13) ? 4 : ((v_Y_jo * -4) + 13)) : (5 < ((v_Y_jo * -4) + 14) ? 5 : ((v_Y_jo * -4) + 14))), (6 < ((v_Y_jo * -4) + 15) ? 6 : ((v_Y_jo * -4) + 15)))); ++v_T_j) {
          {
            const int64_t v_T_j_2 = ((v_Y_jo * 4) + v_T_j);
            b_T[(v_Y_i - T_min0) * 6 + (((v_Y_jo * 4) + v_T_j) - T_min1)] = (X[v_Y_i * 15 + v_T_j_2] * 2.0f);
          }
        }
        for (int64_t v_Y_ji = 0; v_Y_ji < (4 < ((v_Y_jo * -4) + 13) ? 4 : ((v_Y_jo * -4) + 13)); ++v_Y_ji) {
          {
            const int64_t v_Y_j = ((v_Y_jo * 4) + v_Y_ji);
            Y[v_Y_i * 13 + ((v_Y_jo * 4) + v_Y_ji)] = ((b_T[(v_Y_i - T_min0) * 6 + (v_Y_j - T_min1)] + b_T[(v_Y_i - T_min0) * 6 + ((v_Y_j + 1) - T_min1)]) + b_T[(v_Y_i - T_min0) * 6 + ((v_Y_j + 2) - T_min1)]);
          }
        }
      }
    }
  }
}

void ekb_entry(void* const* args, int32_t num_threads) {
  ekb_kernel((const float*)args[0], (float*)args[1], num_threads);
}
