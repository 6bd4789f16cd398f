/* kernel parallel */
void ekb_kernel(const float* restrict X, float* restrict Y, int32_t num_threads) {
  (void)num_threads;
  /* stage Y */
  #pragma omp parallel num_threads(num_threads) firstprivate(X, Y)
  {
    #if defined(__clang__) && __clang_major__ >= 17
    __builtin_assume_separate_storage(Y, X);
    #endif
    #pragma omp for schedule(static)
    for (int64_t v_Y_r = 0; v_Y_r < 10; ++v_Y_r) {
      float b_racc0;
      b_racc0 = 0.0f;
      for (int64_t v_Y_c = 0; v_Y_c < 13; ++v_Y_c) {
        b_racc0 = (b_racc0 + (X[v_Y_r * 13 + v_Y_c] * X[v_Y_r * 13 + v_Y_c]));
      }
      Y[v_Y_r] = b_racc0;
    }
  }
}

void ekb_entry(void* const* args, int32_t num_threads) {
  ekb_kernel((const float*)args[0], (float*)args[1], num_threads);
}
