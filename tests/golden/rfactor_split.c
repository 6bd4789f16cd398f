/* kernel rfactor_split */
void ekb_kernel(const float* restrict X, float* restrict Y, int32_t num_threads) {
  (void)num_threads;
  {
    float* b_Yp = (float*)ekb_alloc((size_t)40 * sizeof(float));
    /* stage Yp */
    for (int64_t v_Yp_r = 0; v_Yp_r < 10; ++v_Yp_r) {
      { /* vectorized: 4 lanes of Yp.ci */
        const int64_t v_Yp_ci_base = 0;
        ekb_store_f32x4(&b_Yp[(v_Yp_r * 4) + v_Yp_ci_base], ekb_splat_f32x4(0.0f));
      }
      for (int64_t v_Yp_co = 0; v_Yp_co < 4; ++v_Yp_co) {
        { /* vectorized: 4 lanes of Yp.ci */
          const int64_t v_Yp_ci_base = 0;
          ekb_store_f32x4(&b_Yp[(v_Yp_r * 4) + v_Yp_ci_base], (ekb_load_f32x4(&b_Yp[(v_Yp_r * 4) + v_Yp_ci_base]) + ({ ekb_i32x4 ekb_m0 = ((ekb_splat_i32x4(((int32_t)((uint32_t)v_Yp_co * (uint32_t)4))) + ((ekb_i32x4){0, 1, 2, 3} + (int32_t)v_Yp_ci_base)) < ekb_splat_i32x4(13)); ekb_i32x4 ekb_mt1 = ekb_m0; ekb_i32x4 ekb_mf2 = (~ekb_m0); (void)ekb_mt1; (void)ekb_mf2; ekb_blend_f32x4(ekb_m0, (((uint64_t)(((v_Yp_co * 4) + (v_Yp_r * 13)) + v_Yp_ci_base) <= (uint64_t)126 || ekb_all_i32x4(ekb_mt1)) ? ekb_load_f32x4(&X[((v_Yp_co * 4) + (v_Yp_r * 13)) + v_Yp_ci_base]) : ({ ekb_f32x4 ekb_r1 = {0}; for (int l = 0; l < 4; ++l) if (ekb_mt1[l]) ekb_r1[l] = X[v_Yp_r * 13 + ((v_Yp_co * 4) + (v_Yp_ci_base + l))]; ekb_r1; })), ekb_splat_f32x4(0.0f)); })));
        }
      }
    }
    /* stage Y */
    for (int64_t v_Y_r = 0; v_Y_r < 10; ++v_Y_r) {
      float b_racc0;
      b_racc0 = 0.0f;
      for (int64_t v_Y_ci = 0; v_Y_ci < 4; ++v_Y_ci) {
        b_racc0 = (b_racc0 + b_Yp[v_Y_r * 4 + v_Y_ci]);
      }
      Y[v_Y_r] = b_racc0;
    }
    free(b_Yp);
  }
}

void ekb_entry(void* const* args, int32_t num_threads) {
  ekb_kernel((const float*)args[0], (float*)args[1], num_threads);
}
