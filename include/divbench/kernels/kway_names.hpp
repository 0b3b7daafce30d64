// How the k-way kernels' names are mangled, host-only: the one place that spells them, for the
// experiments that find these kernels in the binary's SASS (kway_kernel_needle, experiments/kway/kway.cu)
// and for divbench_model's fit of the loop-cost constants (kway_body_needles, src/model/): declared here,
// below both, so that the model does not reach up into an experiment's folder.
#pragma once
#include <cctype>
#include <string>

namespace divbench::kway_names {

// A body's type name as the mangled names spell it, from its name: "mem_divergent" -> "12MemDivergent"
// (the body types are divbench::bodies::FmaChain, ..., the CamelCase of their names).
inline std::string mangled_body(const std::string& body) {
  std::string camel;
  bool up = true;
  for (char ch : body) {
    if (ch == '_') {
      up = true;
      continue;
    }
    camel += up ? static_cast<char>(std::toupper(static_cast<unsigned char>(ch))) : ch;
    up = false;
  }
  return std::to_string(camel.size()) + camel;
}

// The mangled kernel template names: the divergent kernel, the no-divergence control, the slot control.
inline constexpr const char* kDivergent = "11kway_kernelI";
inline constexpr const char* kControl = "19kway_control_kernelI";
inline constexpr const char* kControlSlots = "25kway_control_slots_kernelI";

// The part of a kernel's mangled name that names one instantiation: KERNEL<bodies::BODY, PLACEMENT>.
inline std::string instantiation(const char* kernel, const std::string& body, int placement) {
  return std::string(kernel) + "NS_6bodies" + mangled_body(body) + "ELi" + std::to_string(placement) + "EE";
}

}  // namespace divbench::kway_names
