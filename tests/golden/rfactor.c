/* kernel rfactor */
void ekb_kernel(const float* restrict X, float* restrict Y, int32_t num_threads) {
  (void)num_threads;
  {
    float* b_Yp = (float*)ekb_alloc((size_t)130 * sizeof(float));
    /* stage Yp */
    for (int64_t v_Yp_r = 0; v_Yp_r < 10; ++v_Yp_r) {
      #pragma omp parallel num_threads(num_threads) firstprivate(X, Y, b_Yp)
      {
        #if defined(__clang__) && __clang_major__ >= 17
        __builtin_assume_separate_storage(Y, X); __builtin_assume_separate_storage(Y, b_Yp);
        __builtin_assume_separate_storage(b_Yp, X);
        #endif
        #pragma omp for schedule(static)
        for (int64_t v_Yp_c = 0; v_Yp_c < 13; ++v_Yp_c) {
          b_Yp[v_Yp_r * 13 + v_Yp_c] = (X[v_Yp_r * 13 + v_Yp_c] * 2.0f);
        }
      }
    }
    /* stage Y */
    for (int64_t v_Y_r = 0; v_Y_r < 10; ++v_Y_r) {
      float b_racc0;
      b_racc0 = 0.0f;
      for (int64_t v_Y_c = 0; v_Y_c < 13; ++v_Y_c) {
        b_racc0 = (b_racc0 + b_Yp[v_Y_r * 13 + v_Y_c]);
      }
      Y[v_Y_r] = b_racc0;
    }
    free(b_Yp);
  }
}

void ekb_entry(void* const* args, int32_t num_threads) {
  ekb_kernel((const float*)args[0], (float*)args[1], num_threads);
}
