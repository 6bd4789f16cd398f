/* kernel vectorize_width */
void ekb_kernel(const float* restrict X, const float* restrict B, float* restrict Y, int32_t num_threads) {
  (void)num_threads;
  /* stage Y */
  for (int64_t v_Y_i = 0; v_Y_i < 10; ++v_Y_i) {
    for (int64_t v_Y_j_o = 0; v_Y_j_o < 4; ++v_Y_j_o) {
      if (((4 < ((v_Y_j_o * -4) + 13) ? 4 : ((v_Y_j_o * -4) + 13)) == 4)) {
        { /* vectorized: 4 lanes of Y.j_v */
          const int64_t v_Y_j_v_base = 0;
          ekb_store_f32x4(&Y[((v_Y_j_o * 4) + (v_Y_i * 13)) + v_Y_j_v_base], ((ekb_load_f32x4(&X[((v_Y_j_o * 4) + (v_Y_i * 13)) + v_Y_j_v_base]) * ekb_load_f32x4(&B[(v_Y_j_o * 4) + v_Y_j_v_base])) + ekb_splat_f32x4(1.0f)));
        }
      } else {
        for (int64_t v_Y_j_v = 0; v_Y_j_v < (4 < ((v_Y_j_o * -4) + 13) ? 4 : ((v_Y_j_o * -4) + 13)); ++v_Y_j_v) {
          {
            const int64_t v_Y_j = ((v_Y_j_o * 4) + v_Y_j_v);
            Y[v_Y_i * 13 + ((v_Y_j_o * 4) + v_Y_j_v)] = ((X[v_Y_i * 13 + v_Y_j] * B[v_Y_j]) + 1.0f);
          }
        }
      }
    }
  }
}

void ekb_entry(void* const* args, int32_t num_threads) {
  ekb_kernel((const float*)args[0], (const float*)args[1], (float*)args[2], num_threads);
}
