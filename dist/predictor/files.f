+incdir+.
kv_asu_wrapper.v
predictor/kv_asu.v
