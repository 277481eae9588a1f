// SPDX-License-Identifier: Apache-2.0
//
// One single-event upset through VPI: flip bit `bit` of word `word` of the memory array
// whose hierarchical name is `name` ("TOP." and the array's instance path). The Verilated
// model must be built with --vpi and the array public_flat_rw (verif.fast.verilate's
// public_config). Returns nullptr on success, or what was wrong, worded to precede the
// array's name ("no memory NAME"). Used by the fast harness
// (verif/fast/harness.cpp) and the firmware test (verif/firmware/firmware_test.cpp).
#ifndef KVASU_VPI_FLIP_H
#define KVASU_VPI_FLIP_H

#include <cstdint>
#include <vector>

#include "verilated_vpi.h"

inline const char* vpi_flip(const char* name, uint32_t word, uint32_t bit) {
  vpiHandle mem = vpi_handle_by_name(const_cast<char*>(name), nullptr);
  if (!mem) return "no memory";
  vpiHandle element = vpi_handle_by_index(mem, (PLI_INT32)word);
  if (!element) return "no such word in";
  if (bit >= (uint32_t)vpi_get(vpiSize, element)) return "bit beyond the word width of";
  s_vpi_value v;
  v.format = vpiVectorVal;
  vpi_get_value(element, &v);
  const unsigned n = ((unsigned)vpi_get(vpiSize, element) + 31) / 32;
  std::vector<s_vpi_vecval> vec(v.value.vector, v.value.vector + n);
  vec[bit / 32].aval ^= 1u << (bit % 32);
  v.value.vector = vec.data();
  vpi_put_value(element, &v, nullptr, vpiNoDelay);
  return nullptr;
}

#endif  // KVASU_VPI_FLIP_H
