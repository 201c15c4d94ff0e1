// The identity of this build of the reference and the harness (a SHA-256 of
// their sources, the compiler and its flags; cmake/OrdoBuildId.cmake): what
// the run's caches are keyed on, so that every executable of one build shares
// them and an entry of another build is never read.
#pragma once

namespace ordo::harness {
const char* build_id();
}  // namespace ordo::harness
