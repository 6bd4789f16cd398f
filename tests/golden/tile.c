/* kernel tile */
void ekb_kernel(const float* restrict X, float* restrict Y, int32_t num_threads) {
  (void)num_threads;
  /* stage Y */
  for (int64_t v_Y_io = 0; v_Y_io < 3; ++v_Y_io) {
    for (int64_t v_Y_jo = 0; v_Y_jo < 4; ++v_Y_jo) {
      for (int64_t v_Y_ii = 0; v_Y_ii < (4 < ((v_Y_io * -4) + 10) ? 4 : ((v_Y_io * -4) + 10)); ++v_Y_ii) {
        for (int64_t v_Y_ji = 0; v_Y_ji < (4 < ((v_Y_jo * -4) + 13) ? 4 : ((v_Y_jo * -4) + 13)); ++v_Y_ji) {
          {
            const int64_t v_Y_i = ((v_Y_io * 4) + v_Y_ii);
            {
              const int64_t v_Y_j = ((v_Y_jo * 4) + v_Y_ji);
              Y[((v_Y_io * 4) + v_Y_ii) * 13 + ((v_Y_jo * 4) + v_Y_ji)] = X[v_Y_j * 10 + v_Y_i];
            }
          }
        }
      }
    }
  }
}

void ekb_entry(void* const* args, int32_t num_threads) {
  ekb_kernel((const float*)args[0], (float*)args[1], num_threads);
}
