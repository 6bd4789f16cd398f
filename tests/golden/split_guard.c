/* kernel split_guard */
void ekb_kernel(const float* restrict X, float* restrict Y, int32_t num_threads) {
  (void)num_threads;
  /* stage Y */
  for (int64_t v_Y_i = 0; v_Y_i < 10; ++v_Y_i) {
    for (int64_t v_Y_jo = 0; v_Y_jo < 4; ++v_Y_jo) {
      for (int64_t v_Y_ji = 0; v_Y_ji < (4 < ((v_Y_jo * -4) + 13) ? 4 : ((v_Y_jo * -4) + 13)); ++v_Y_ji) {
        {
          const int64_t v_Y_j = ((v_Y_jo * 4) + v_Y_ji);
          Y[v_Y_i * 13 + ((v_Y_jo * 4) + v_Y_ji)] = ((X[v_Y_i * 13 + v_Y_j] * 2.0f) + 1.0f);
        }
      }
    }
  }
}

void ekb_entry(void* const* args, int32_t num_threads) {
  ekb_kernel((const float*)args[0], (float*)args[1], num_threads);
}
