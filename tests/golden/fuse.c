/* kernel fuse */
void ekb_kernel(const float* restrict X, float* restrict Y, int32_t num_threads) {
  (void)num_threads;
  /* stage Y */
  for (int64_t v_Y_ij = 0; v_Y_ij < 130; ++v_Y_ij) {
    {
      const int64_t v_Y_i = ((int64_t)ekb_fdiv(v_Y_ij, 13));
      {
        const int64_t v_Y_j = ((int64_t)ekb_fmod(v_Y_ij, 13));
        Y[((int64_t)ekb_fdiv(v_Y_ij, 13)) * 13 + ((int64_t)ekb_fmod(v_Y_ij, 13))] = (X[v_Y_i * 13 + v_Y_j] - X[v_Y_i * 13 + 0]);
      }
    }
  }
}

void ekb_entry(void* const* args, int32_t num_threads) {
  ekb_kernel((const float*)args[0], (float*)args[1], num_threads);
}
