+incdir+.
kv_asu_wrapper.v
ice40/kv_asu.v
