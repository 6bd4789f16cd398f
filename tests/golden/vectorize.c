/* kernel vectorize */
void ekb_kernel(const float* restrict X, const float* restrict B, float* restrict Y, int32_t num_threads) {
  (void)num_threads;
  /* stage Y */
  for (int64_t v_Y_i = 0; v_Y_i < 10; ++v_Y_i) {
    { /* vectorized: 8 lanes of Y.j */
      const int64_t v_Y_j_base = 0;
      ekb_store_f32x8(&Y[(v_Y_i * 8) + v_Y_j_base], ((ekb_load_f32x8(&X[(v_Y_i * 8) + v_Y_j_base]) * ekb_load_f32x8(&B[0 + v_Y_j_base])) + ekb_splat_f32x8(1.0f)));
    }
  }
}

void ekb_entry(void* const* args, int32_t num_threads) {
  ekb_kernel((const float*)args[0], (const float*)args[1], (float*)args[2], num_threads);
}
