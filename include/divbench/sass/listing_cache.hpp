// nvdisasm listings kept in a folder by what determines them, so that analysing the same cubins again
// (the study and its Slurm array, a re-run after a change in the analysis) does not start nvdisasm
// again: each start costs about 0.35 s of CPU however small the cubin (nvdisasm 13.5, sm_90).
#pragma once
#include <string>
#include <vector>

#include "divbench/core/process.hpp"

namespace divbench::sass {

// The key of one listing: 32 hex digits over nvdisasm's resolved path, size and modification time,
// the options (argv without argv[0] and without the last element, the cubin's name) and the cubin's
// bytes. A rebuilt or replaced nvdisasm, another option or a changed byte gives another key.
std::string listing_key(const std::vector<std::string>& argv, const std::string& cubin_bytes);

// Runs argv (argv[0] nvdisasm, the last element the cubin) with run_process, or answers from `dir`
// when a run with the same key exited 0 before. Only a run that exited 0 is kept (stdout only, written
// by renaming a complete file (no fsync: a lost entry is only run again), with a header that names the key and the length, so a foreign or cut file is ignored
// and run again). `dir` empty: no cache. The folder is created when missing; a listing that cannot be
// stored is not an error (the result is returned all the same).
ProcessResult run_listing(const std::vector<std::string>& argv, const std::string& cubin_bytes,
                          const std::string& dir);

// Checks a cache folder named on the command line before any work, creating nothing: an existing
// non-directory, a missing folder whose parent is not a directory, or one that is not writable, is a
// UsageError naming `opt`.
void check_listing_cache(const std::string& opt, const std::string& dir);

}  // namespace divbench::sass
