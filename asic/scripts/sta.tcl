# OpenSTA on the mapped core: ideal clock, wire-load model, no I/O constraints (only paths
# between clocked elements, flip-flops and macros, are timed). The extra checks: the flow's
# path groups (from / into a macro, within the core, between flip-flops). The power
# reports: each at one switching activity on every net but the clock; the macros' cells are
# in each report's "Macro" group (is_macro in their Liberty).
read_liberty stdcells.lib
read_liberty sram_macros.lib
read_verilog netlist.v
link_design kv_asu
set_wire_load_model -name ${wire_load}
create_clock -name clk -period ${period} [get_ports clk]
puts "=== all"
report_checks -path_delay max -format full -digits 3
puts "=== endpoints"
report_checks -path_delay max -group_count ${paths} -endpoint_count 1 -format full -digits 3
${extra_checks}
${power_reports}
