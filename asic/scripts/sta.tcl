# OpenSTA on the mapped core: ideal clock, wire-load model, no I/O constraints (only paths
# between clocked elements, flip-flops and macros, are timed).
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
puts "=== flops"
report_checks -path_delay max -from [all_registers -clock_pins] -to [all_registers -data_pins] -format full -digits 3
set_power_activity -global -activity ${activity}
puts "=== power"
report_power -digits 6
