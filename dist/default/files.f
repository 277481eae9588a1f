+incdir+.
kv_asu_wrapper.v
default/kv_asu.v
