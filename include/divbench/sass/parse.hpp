// Parsers that fill the instruction model from nvdisasm output. The seam for other listing
// formats: a new parser produces std::vector<Function> with offsets, opcodes, operands, targets
// and (optionally) encodings; everything downstream (CFG, regions, census) only reads the model.
#pragma once
#include <string>
#include <vector>

#include "divbench/core/json_io.hpp"
#include "divbench/sass/instruction.hpp"

namespace divbench::sass {

// Metadata of a -json document (first array element).
struct ListingMeta {
  int sm = 0;  // SM.version major*10+minor, 0 when absent
  std::string producer;
  std::string toolkit;  // .note.nv.tkinfo tki_toolVersion
  std::vector<std::string> source_files;  // -g: the line table's files, "dir/file" (third element)
};

// `nvdisasm -json` output: [metadata, [functions]] (with -g a third element, the line table's
// {"directories", "files"}; each instruction's source-file-id/source-line holds until the next). Instruction n of a function sits at
// start + 16*n. Branch targets are the absolute hex literals in the operands of branch-like
// opcodes. Throws UsageError on a malformed document.
std::vector<Function> parse_nvdisasm_json(const json& doc, ListingMeta* meta = nullptr);
std::vector<Function> parse_nvdisasm_json_text(const std::string& text, ListingMeta* meta = nullptr);

// Text listing (`nvdisasm [-c] [-hex] FILE`): one Function per .text.<name> section, with labels,
// subroutine symbols (.type X,@function inside the section), targets resolved from `(label)
// operands and BRX "BRANCH_TARGETS" lists, and encodings when -hex was given. `sm` chooses the
// encoding layout: >= 70 two 64-bit halves per instruction; < 70 is left to a Pascal parser
// (instructions are parsed, encodings are not filled).
std::vector<Function> parse_nvdisasm_text(const std::string& listing, int sm);

// The source line of each instruction from `nvdisasm -g -c` (its "//## File "PATH", line N" comments,
// for toolkits whose -json has no line table): sets Instruction::source_file/source_line of the
// functions named by the listing's .text.<name> sections; new paths are appended to `files`.
void apply_line_table(std::vector<Function>& functions, std::vector<std::string>& files, const std::string& listing);

// Adds what only the text listing has (encodings, labels, subroutines, BRX targets, CALL targets
// by symbol) to functions parsed from JSON; matched by function name and instruction offset.
void merge_text_listing(std::vector<Function>& from_json, const std::vector<Function>& from_text);

// Maxwell/Pascal: gives each SYNC / BRK / CONT without targets the address pushed by the innermost
// SSY / PBK / PCNT (respectively) whose [push, address] interval contains it. A layout heuristic
// (nvcc lays these regions out as nested intervals); called by parse_nvdisasm_text for sm < 70.
void resolve_stack_targets(Function& f);

// Fills `targets` from operands for branch-like opcodes (shared by both parsers).
void infer_targets(Instruction& ins);

}  // namespace divbench::sass
