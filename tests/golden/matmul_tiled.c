/* kernel matmul_tiled */
void ekb_kernel(const float* restrict A, const float* restrict B, float* restrict Y, int32_t num_threads) {
  (void)num_threads;
  {
    float* b_B_packed = (float*)ekb_alloc((size_t)96 * sizeof(float));
    /* stage B_packed */
    for (int64_t v_B_packed_ax0 = 0; v_B_packed_ax0 < 4; ++v_B_packed_ax0) {
      for (int64_t v_B_packed_ax1 = 0; v_B_packed_ax1 < 6; ++v_B_packed_ax1) {
        for (int64_t v_B_packed_ax2 = 0; v_B_packed_ax2 < 4; ++v_B_packed_ax2) {
          b_B_packed[v_B_packed_ax0 * 24 + v_B_packed_ax1 * 4 + v_B_packed_ax2] = ((((v_B_packed_ax0 * 4) + v_B_packed_ax2) < 13) ? B[v_B_packed_ax1 * 13 + ((v_B_packed_ax0 * 4) + v_B_packed_ax2)] : 0.0f);
        }
      }
    }
    /* stage Y */
    for (int64_t v_Y_mo = 0; v_Y_mo < 3; ++v_Y_mo) {
      for (int64_t v_Y_no = 0; v_Y_no < 4; ++v_Y_no) {
        if (((4 < ((v_Y_no * -4) + 13) ? 4 : ((v_Y_no * -4) + 13)) == 4)) {
          {
            const int64_t Yc_min0 = (v_Y_mo * 4);
            const int64_t Yc_min1 = (v_Y_no * 4);
            float b_Yc[16] __attribute__((aligned(64)));
            /* stage Yc (computed at Y.no) */
            for (int64_t v_Yc_mi = 0; v_Yc_mi < (4 < ((v_Y_mo * -4) + 10) ? 4 : ((v_Y_mo * -4) + 10)); ++v_Yc_mi) {
              { /* vectorized: 4 lanes of Yc.ni */
                const int64_t v_Yc_ni_base = 0;
                {
                  const int64_t v_Yc_m = ((v_Y_mo * 4) + v_Yc_mi);
                  ekb_store_f32x4(&b_Yc[(((((v_Y_no * 4) - Yc_min1) + (v_Y_mo * 16)) + (v_Yc_mi * 4)) - (Yc_min0 * 4)) + v_Yc_ni_base], ekb_splat_f32x4(0.0f));
                }
              }
            }
            for (int64_t v_Yc_k = 0; v_Yc_k < 6; ++v_Yc_k) {
              for (int64_t v_Yc_mi = 0; v_Yc_mi < (4 < ((v_Y_mo * -4) + 10) ? 4 : ((v_Y_mo * -4) + 10)); ++v_Yc_mi) {
                { /* vectorized: 4 lanes of Yc.ni */
                  const int64_t v_Yc_ni_base = 0;
                  {
                    const int64_t v_Yc_m = ((v_Y_mo * 4) + v_Yc_mi);
                    ekb_store_f32x4(&b_Yc[(((((v_Y_no * 4) - Yc_min1) + (v_Y_mo * 16)) + (v_Yc_mi * 4)) - (Yc_min0 * 4)) + v_Yc_ni_base], (ekb_load_f32x4(&b_Yc[(((((v_Y_no * 4) - Yc_min1) + (v_Y_mo * 16)) + (v_Yc_mi * 4)) - (Yc_min0 * 4)) + v_Yc_ni_base]) + (ekb_splat_f32x4(A[v_Yc_m * 6 + v_Yc_k]) * ekb_load_f32x4(&b_B_packed[((v_Yc_k * 4) + (v_Y_no * 24)) + v_Yc_ni_base]))));
                  }
                }
              }
            }
            for (int64_t v_Y_mi = 0; v_Y_mi < (4 < ((v_Y_mo * -4) + 10) ? 4 : ((v_Y_mo * -4) + 10)); ++v_Y_mi) {
              for (int64_t v_Y_ni = 0; v_Y_ni < (4 < ((v_Y_no * -4) + 13) ? 4 : ((v_Y_no * -4) + 13)); ++v_Y_ni) {
                {
                  const int64_t v_Y_m = ((v_Y_mo * 4) + v_Y_mi);
                  {
                    const int64_t v_Y_n = ((v_Y_no * 4) + v_Y_ni);
                    Y[((v_Y_mo * 4) + v_Y_mi) * 13 + ((v_Y_no * 4) + v_Y_ni)] = b_Yc[(v_Y_m - Yc_min0) * 4 + (v_Y_n - Yc_min1)];
                  }
                }
              }
            }
          }
        } else {
          {
            const int64_t Yc_min0_2 = (v_Y_mo * 4);
            const int64_t Yc_min1_2 = (v_Y_no * 4);
            float b_Yc_2[16] __attribute__((aligned(64)));
            /* stage Yc (computed at Y.no) */
            for (int64_t v_Yc_mi = 0; v_Yc_mi < (4 < ((v_Y_mo * -4) + 10) ? 4 : ((v_Y_mo * -4) + 10)); ++v_Yc_mi) {
              for (int64_t v_Yc_ni = 0; v_Yc_ni < (4 < ((v_Y_no * -4) + 13) ? 4 : ((v_Y_no * -4) + 13)); ++v_Yc_ni) {
                {
                  const int64_t v_Yc_m = ((v_Y_mo * 4) + v_Yc_mi);
                  {
                    const int64_t v_Yc_n = ((v_Y_no * 4) + v_Yc_ni);
                    b_Yc_2[(((v_Y_mo * 4) + v_Yc_mi) - Yc_min0_2) * 4 + (((v_Y_no * 4) + v_Yc_ni) - Yc_min1_2)] = 0.0f;
                  }
                }
              }
            }
            for (int64_t v_Yc_k = 0; v_Yc_k < 6; ++v_Yc_k) {
              for (int64_t v_Yc_mi = 0; v_Yc_mi < (4 < ((v_Y_mo * -4) + 10) ? 4 : ((v_Y_mo * -4) + 10)); ++v_Yc_mi) {
                for (int64_t v_Yc_ni = 0; v_Yc_ni < (4 < ((v_Y_no * -4) + 13) ? 4 : ((v_Y_no * -4) + 13)); ++v_Yc_ni) {
                  {
                    const int64_t v_Yc_m = ((v_Y_mo * 4) + v_Yc_mi);
                    {
                      const int64_t v_Yc_n = ((v_Y_no * 4) + v_Yc_ni);
                      b_Yc_2[(((v_Y_mo * 4) + v_Yc_mi) - Yc_min0_2) * 4 + (((v_Y_no * 4) + v_Yc_ni) - Yc_min1_2)] = (b_Yc_2[(((v_Y_mo * 4) + v_Yc_mi) - Yc_min0_2) * 4 + (((v_Y_no * 4) + v_Yc_ni) - Yc_min1_2)] + (A[v_Yc_m * 6 + v_Yc_k] * b_B_packed[((int64_t)ekb_fdiv(v_Yc_n, 4)) * 24 + v_Yc_k * 4 + ((int64_t)ekb_fmod(v_Yc_n, 4))]));
                    }
                  }
                }
              }
            }
            for (int64_t v_Y_mi = 0; v_Y_mi < (4 < ((v_Y_mo * -4) + 10) ? 4 : ((v_Y_mo * -4) + 10)); ++v_Y_mi) {
              for (int64_t v_Y_ni = 0; v_Y_ni < (4 < ((v_Y_no * -4) + 13) ? 4 : ((v_Y_no * -4) + 13)); ++v_Y_ni) {
                {
                  const int64_t v_Y_m = ((v_Y_mo * 4) + v_Y_mi);
                  {
                    const int64_t v_Y_n = ((v_Y_no * 4) + v_Y_ni);
                    Y[((v_Y_mo * 4) + v_Y_mi) * 13 + ((v_Y_no * 4) + v_Y_ni)] = b_Yc_2[(v_Y_m - Yc_min0_2) * 4 + (v_Y_n - Yc_min1_2)];
                  }
                }
              }
            }
          }
        }
      }
    }
    free(b_B_packed);
  }
}

void ekb_entry(void* const* args, int32_t num_threads) {
  ekb_kernel((const float*)args[0], (const float*)args[1], (float*)args[2], num_threads);
}
