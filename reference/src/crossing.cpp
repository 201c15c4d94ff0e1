#include "ordo/reference/crossing.h"

#include <algorithm>
#include <cstdlib>
#include <iterator>
#include <limits>
#include <map>
#include <random>
#include <stdexcept>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "ordo/reference/datatype.h"
#include "ordo/reference/errors.h"
#include "ordo/reference/json.h"

namespace ordo::ref::crossing {
namespace {

enum Dim {
  kRoutine,
  kForm,
  kOp,
  kType,
  kCount,
  kRoot,
  kInPlace,
  kComm,
  kBinding,
  kConcurrency,
  kDims
};

// Each datatype class as its op kinds need it: a predefined op takes the
// predefined type, a witness op whole cells of four 4-byte integers.
struct TypeClass {
  const char* name;
  const char* predefined;  // for MPI_SUM and MPI_MINLOC ("" if none)
  const char* cells;       // for the witness ops ("" if none)
  bool large = false;      // cells of element_bytes() each (the text is made from it)
};
const TypeClass kTypes[] = {
    {"basic", "MPI_INT", ""},
    {"floating", "MPI_DOUBLE", ""},
    {"pair", "MPI_DOUBLE_INT", ""},
    {"char", "MPI_SIGNED_CHAR", ""},
    // The Fortran types, called from C: INTEGER for the predefined ops and in
    // the witness's cells, MPI_2INTEGER for MINLOC/MAXLOC.
    {"fortran", "MPI_INTEGER", "contiguous(4,MPI_INTEGER)"},
    {"fortran-pair", "MPI_2INTEGER", ""},
    // The pair type MPI_Type_get_value_index returns (MPI-4.1 6.9.4): the
    // layout of MPI_DOUBLE_INT, its handle from the routine; unavailable
    // with the library's reason where it lacks the routine.
    {"value-index", "value_index(MPI_DOUBLE,MPI_INT)", ""},
    {"contiguous", "", "contiguous(4,MPI_INT)"},
    {"vector-holes", "", "vector(2,2,3,MPI_INT)"},
    {"indexed", "", "indexed([1,3],[0,5],MPI_INT)"},
    {"struct-padded", "", "struct([2,2],[0,12],[MPI_INT,MPI_INT])"},
    {"resized-negative-lb", "", "resized(-8,40,vector(2,2,3,MPI_INT))"},
    // Elements that interleave with their neighbours: two blocks of two ints
    // 40 bytes apart (true extent 48) in an extent of 16, so that element k's
    // second block (bytes 16k+40..16k+47) lies between the first blocks of
    // elements k+2 and k+3. The blocks hold bytes 0-7 and 8-15 modulo the
    // extent: distinct residues, so no two data bytes of any number of
    // elements coincide and the type is valid where a receive datatype must
    // not overlap itself (the reference's buffers.recv-overlap check), in
    // place too.
    {"interleaved", "", "resized(0,16,indexed([2,2],[0,10],MPI_INT))"},
    // One element larger than the library's pipeline chunk or segment
    // (element_bytes(): the smallest multiple of 16 bytes above the chunk
    // size the variant forces, else kDefaultElementBytes): contiguous ints,
    // whole cells. A buffer of many such elements may exceed the bound on a
    // buffer's bytes (realize_row): 65536 elements of 4112 bytes do.
    {"large-element", "", "", true},
};

std::size_t g_element_bytes = kDefaultElementBytes;
// The large-element class's datatype, made from g_element_bytes.
std::string large_element_type() {
  return "contiguous(" + std::to_string(g_element_bytes / 4) + ",MPI_INT)";
}
std::string g_large_element_type = large_element_type();

const char* const kOps[] = {
    "predefined",      "minloc", "noncommutative", "noncommutative-c", "declared-noncommutative",
    "commutative-user"};
const int kCounts[] = {0, 1, 7, 1000, 65536};

// A tuple's key: a mixed-radix number with one digit per dimension, 0 for a
// dimension the tuple does not name and value + 1 for one it does, so that
// every tuple of every strength has its own key in [0, key_space()).
const std::vector<std::uint64_t>& strides() {
  static const std::vector<std::uint64_t> s = [] {
    std::vector<std::uint64_t> v;
    std::uint64_t n = 1;
    for (const Dimension& d : dimensions()) {
      v.push_back(n);
      n *= d.values.size() + 1;
    }
    v.push_back(n);
    return v;
  }();
  return s;
}

std::uint64_t key_of(const std::vector<int>& dims, const Row& row) {
  std::uint64_t k = 0;
  for (int d : dims)
    k += static_cast<std::uint64_t>(row[static_cast<std::size_t>(d)] + 1) *
         strides()[static_cast<std::size_t>(d)];
  return k;
}

// A set of tuple keys as one bit per possible key (a few MiB): the covering
// array's bookkeeping touches tens of millions of keys.
class KeySet {
 public:
  KeySet() : bits_(strides().back(), false) {}
  std::pair<std::uint64_t, bool> insert(std::uint64_t k) {
    if (bits_[k]) return {k, false};
    bits_[k] = true;
    ++n_;
    return {k, true};
  }
  std::size_t count(std::uint64_t k) const { return bits_[k] ? 1 : 0; }
  void erase(std::uint64_t k) {
    if (!bits_[k]) return;
    bits_[k] = false;
    --n_;
  }
  std::size_t size() const { return n_; }
  bool empty() const { return n_ == 0; }

 private:
  std::vector<bool> bits_;
  std::size_t n_ = 0;
};

std::vector<std::vector<int>> dim_sets(int strength) {
  std::vector<std::vector<int>> out;
  std::vector<int> cur;
  std::function<void(int)> rec = [&](int from) {
    if (static_cast<int>(cur.size()) == strength) {
      out.push_back(cur);
      return;
    }
    for (int d = from; d < kDims; ++d) {
      cur.push_back(d);
      rec(d + 1);
      cur.pop_back();
    }
  };
  rec(0);
  return out;
}

}  // namespace

void set_element_bytes(std::size_t bytes) {
  if (bytes == 0 || bytes % 16 != 0)
    throw UsageError(
        "the large element's size is a positive multiple of 16 bytes (whole cells "
        "of four 4-byte integers), not " +
        std::to_string(bytes));
  // (A bound on the text's integer: contiguous takes an int count.)
  if (bytes / 4 > static_cast<std::size_t>(std::numeric_limits<int>::max()))
    throw UsageError("the large element's size " + std::to_string(bytes) + " is out of range");
  g_element_bytes = bytes;
  g_large_element_type = large_element_type();
}

std::size_t element_bytes() { return g_element_bytes; }

const std::vector<Dimension>& dimensions() {
  static const std::vector<Dimension> v = [] {
    std::vector<Dimension> d(kDims);
    d[kRoutine] = {"routine",
                   {"reduce", "allreduce", "reduce_scatter", "reduce_scatter_block", "scan",
                    "exscan", "reduce_local", "reduce_locals"}};
    d[kForm] = {
        "form",
        {"blocking", "nonblocking", "persistent", "blocking_c", "nonblocking_c", "persistent_c"}};
    for (const char* o : kOps) d[kOp].values.emplace_back(o);
    d[kOp].name = "op";
    d[kType].name = "datatype";
    for (const TypeClass& t : kTypes) d[kType].values.emplace_back(t.name);
    d[kCount].name = "count";
    for (int c : kCounts) d[kCount].values.push_back(std::to_string(c));
    d[kRoot] = {"root", {"first", "middle", "last", "other-group"}};
    d[kInPlace] = {"in_place", {"no", "yes"}};
    d[kComm] = {"comm",
                {"world", "dup", "reversed", "odd-even", "self", "cart", "merged", "create-group",
                 "session", "inter-1-n", "inter-n-1", "inter-halves", "inter-permuted"}};
    // The language binding the call is made through (MPI-4.1 Chapter 19): C,
    // the mpi_f08 module, the mpi module.
    d[kBinding] = {"binding", {"c", "f08", "f90"}};
    d[kConcurrency] = {"concurrency", {"single", "test", "outstanding", "freed"}};
    return d;
  }();
  return v;
}

std::string Tuple::describe() const {
  std::string s;
  for (std::size_t i = 0; i < dims.size(); ++i) {
    const Dimension& d = dimensions()[static_cast<std::size_t>(dims[i])];
    if (i) s += " x ";
    s += d.name + "=" + d.values[static_cast<std::size_t>(values[i])];
  }
  return s;
}

namespace {

// covering_array() realizes millions of rows, most of them no valid call;
// what it keeps of one realization for the next:
// - the topology of every communicator shape (asked once per shape);
// - the reference's verdict on a call (validate_case), which depends on the
//   case's fields and the communicator's topology only, not on the shape's
//   name, the binding or the seed: asked once per distinct combination (a
//   few dozen thousand, of millions of rows), keyed by the row's other values
//   and the topology. The key names every field of the case realize() sets
//   except comm, binding and seed.
struct Memo {
  std::vector<std::optional<Topology>> topology;  // by the comm dimension's value
  std::unordered_map<std::uint64_t, std::optional<std::string>> verdicts;  // nullopt: valid
};

std::uint64_t verdict_key(const Row& row, const Topology& t) {
  std::uint64_t k = 0;
  for (int d : {kRoutine, kForm, kOp, kType, kCount, kRoot, kInPlace, kConcurrency})
    k = k * 16 + static_cast<std::uint64_t>(row[static_cast<std::size_t>(d)]);
  return ((k * 2 + (t.inter ? 1 : 0)) * 4096 + static_cast<std::uint64_t>(t.size_low)) * 4096 +
         static_cast<std::uint64_t>(t.size_high);
}

// The value indices the checks below name (the order of dimensions()).
enum OpKind { kPredefined, kMinloc, kNoncommutative, kNoncommutativeC };
enum RootAt { kFirst, kMiddle, kLast, kOtherGroup };
enum Binding { kC, kF08, kF90 };
constexpr int kWorld = 0;
constexpr int kSingle = 0;
const char* const kOpNames[] = {"MPI_SUM",
                                "MPI_MINLOC",
                                "witness.tracer",
                                "witness.tracer-c",
                                "witness.sum-declared-noncommutative",
                                "witness.multiset"};

// The values of the dimensions as the case takes them, by value index.
struct Values {
  std::vector<Routine> routine;
  std::vector<Mode> mode;
  std::vector<bool> large_count;
};
const Values& values() {
  static const Values v = [] {
    Values out;
    const auto& dims = dimensions();
    for (const std::string& r : dims[kRoutine].values) out.routine.push_back(*routine_from_name(r));
    // The checks name these values by index.
    auto named = [&](Dim d, int i, const char* name) {
      if (dims[d].values[static_cast<std::size_t>(i)] != name)
        throw std::logic_error(std::string("crossing: value ") + std::to_string(i) + " of " +
                               dims[d].name + " is not " + name);
    };
    named(kOp, kPredefined, "predefined");
    named(kOp, kMinloc, "minloc");
    named(kOp, kNoncommutativeC, "noncommutative-c");
    named(kRoot, kFirst, "first");
    named(kRoot, kMiddle, "middle");
    named(kRoot, kOtherGroup, "other-group");
    named(kInPlace, 1, "yes");
    named(kComm, kWorld, "world");
    named(kBinding, kC, "c");
    named(kBinding, kF90, "f90");
    named(kConcurrency, kSingle, "single");
    // verdict_key gives each of these dimensions 4 bits.
    for (Dim d : {kRoutine, kForm, kOp, kType, kCount, kRoot, kInPlace, kConcurrency})
      if (dims[d].values.size() > 16)
        throw std::logic_error("crossing: the verdict key has no room for the values of " +
                               dims[d].name);
    if (dims[kOp].values.size() != std::size(kOpNames))
      throw std::logic_error("crossing: an op kind without its op");
    for (const std::string& form : dims[kForm].values) {
      out.mode.push_back(form.rfind("nonblocking", 0) == 0  ? Mode::nonblocking
                         : form.rfind("persistent", 0) == 0 ? Mode::persistent
                                                            : Mode::blocking);
      out.large_count.push_back(form.size() > 2 && form.compare(form.size() - 2, 2, "_c") == 0);
    }
    return out;
  }();
  return v;
}

// The bytes a buffer of `elements` elements of a class's datatype spans
// (its true extent and the extent of each further element), the parsed
// classes' figures kept.
std::size_t buffer_bytes(int type, bool witness, long long elements) {
  struct Figures {
    std::ptrdiff_t extent = 0, true_extent = 0;
  };
  static const std::vector<std::pair<Figures, Figures>> figures = [] {
    std::vector<std::pair<Figures, Figures>> out;
    auto of = [](const char* text) {
      if (!*text) return Figures{};
      const Datatype dt = Datatype::parse(text);
      return Figures{dt.extent(), dt.true_extent()};
    };
    for (const TypeClass& t : kTypes) out.emplace_back(of(t.predefined), of(t.cells));
    return out;
  }();
  if (elements <= 0) return 0;
  const TypeClass& t = kTypes[type];
  const std::ptrdiff_t e = static_cast<std::ptrdiff_t>(g_element_bytes);
  const Figures f = witness && t.large ? Figures{e, e}
                    : witness          ? figures[static_cast<std::size_t>(type)].second
                                       : figures[static_cast<std::size_t>(type)].first;
  return static_cast<std::size_t>(f.true_extent) +
         static_cast<std::size_t>(elements - 1) * static_cast<std::size_t>(std::abs(f.extent));
}

std::optional<Case> realize_row(const Row& row, const ShapeTopology& shapes, std::uint64_t seed,
                                std::string* why, Memo* memo) {
  // The checks in a fixed order, each on the row's value indices; the first
  // that fails gives the reason. The case's strings are written only when
  // a check needs them or the call is valid.
  const auto& dims = dimensions();
  auto value = [&](Dim d) -> const std::string& {
    return dims[d].values[static_cast<std::size_t>(row[d])];
  };
  const Values& v = values();
  Case c;
  c.seed = seed;
  c.routine = v.routine[static_cast<std::size_t>(row[kRoutine])];
  c.mode = v.mode[static_cast<std::size_t>(row[kForm])];
  c.large_count = v.large_count[static_cast<std::size_t>(row[kForm])];
  const bool local = c.routine == Routine::reduce_local || c.routine == Routine::reduce_locals;
  if (local && row[kComm] != kWorld) {
    *why = "a local reduction takes no communicator";
    return std::nullopt;
  }
  if (local && c.mode != Mode::blocking) {
    *why = std::string(routine_name(c.routine)) + " has no " + std::string(mode_name(c.mode)) +
           " form";
    return std::nullopt;
  }
  const std::optional<Topology> t = local  ? Topology{false, 1, 0}
                                    : memo ? memo->topology[static_cast<std::size_t>(row[kComm])]
                                           : shapes(value(kComm));
  if (!t) {
    *why = "the communicator shape " + value(kComm) + " does not exist at this number of processes";
    return std::nullopt;
  }
  const TypeClass& type = kTypes[row[kType]];
  const int op = row[kOp];
  const bool witness = op != kPredefined && op != kMinloc;
  const char* datatype =
      witness ? (type.large ? g_large_element_type.c_str() : type.cells) : type.predefined;
  if (!*datatype) {
    *why =
        witness
            ? std::string("ordo's witness ops take whole cells of four 4-byte integers, not the ") +
                  type.name + " datatype"
            : std::string("a predefined op takes a predefined datatype, not a derived one (") +
                  type.name + ")";
    return std::nullopt;
  }
  c.count = kCounts[row[kCount]];
  c.in_place = row[kInPlace] == 1;
  const int root = row[kRoot];
  if (c.routine != Routine::reduce && root != kFirst) {
    *why = "only MPI_Reduce takes a root";
    return std::nullopt;
  }
  if (root == kOtherGroup && !t->inter) {
    *why = "only an intercommunicator has a second group to hold the root";
    return std::nullopt;
  }
  // The root's group: the low one, or the high one (its last process).
  c.root_in_high_group = root == kOtherGroup;
  const int group = t->size_low;
  c.root = root == kFirst        ? 0
           : root == kMiddle     ? group / 2
           : root == kOtherGroup ? t->size_high - 1
                                 : group - 1;
  if (root != kFirst && root != kOtherGroup && group < (root == kMiddle ? 3 : 2)) {
    *why = "the root's group has fewer than " + std::string(root == kMiddle ? "3" : "2") +
           " processes: no other root";
    return std::nullopt;
  }
  // The bound on a buffer's bytes: the send buffer of the scatter routines
  // holds a block for each process (at most both groups' processes).
  if (c.count > 0) {
    const bool scatter =
        c.routine == Routine::reduce_scatter || c.routine == Routine::reduce_scatter_block;
    const long long elements =
        static_cast<long long>(c.count) * (scatter ? t->size_low + t->size_high : 1);
    const std::size_t bytes = buffer_bytes(row[kType], witness, elements);
    if (bytes > kBufferBytesBound) {
      *why = "a buffer of " + std::to_string(elements) + " elements of the " + type.name +
             " datatype spans " + std::to_string(bytes) + " bytes, over ordo's bound of " +
             std::to_string(kBufferBytesBound >> 20) + " MiB a buffer";
      return std::nullopt;
    }
  }
  auto strings = [&] {
    c.comm = value(kComm);
    c.datatype = datatype;
    c.op = kOpNames[op];
    c.binding = value(kBinding);
    c.concurrency = row[kConcurrency] == kSingle ? "" : value(kConcurrency);
  };
  if (row[kConcurrency] != kSingle) {  // one call alone has no conflict
    strings();
    if (const std::string conflict = concurrency_conflict(c); !conflict.empty()) {
      *why = conflict;
      return std::nullopt;
    }
  }
  if (c.routine == Routine::reduce_locals && c.large_count) {
    *why = "the MPI_Reduce_locals proposal defines no large-count (_c) binding";
    return std::nullopt;
  }
  if (c.routine == Routine::reduce_locals && c.in_place) {
    *why =
        "MPI_Reduce_locals takes MPI_IN_PLACE per argument (the proposals check), not as a send "
        "buffer";
    return std::nullopt;
  }
  const int binding = row[kBinding];
  if (binding != kC && c.routine == Routine::reduce_locals) {
    *why = "the MPI_Reduce_locals proposal defines no Fortran binding";
    return std::nullopt;
  }
  // MPI-4.1 Chapter 19: the large-count (INTEGER(KIND=MPI_COUNT_KIND))
  // procedures, MPI_Op_create_c among them, are in the mpi_f08 module only.
  if (binding == kF90 && c.large_count) {
    *why = "the mpi module has no large-count forms (only mpi_f08 has them)";
    return std::nullopt;
  }
  if (binding == kF90 && op == kNoncommutativeC) {
    *why = "the mpi module has no MPI_Op_create_c (large-count user functions are mpi_f08's)";
    return std::nullopt;
  }
  // (The key has 12 bits for each group's size.)
  const bool keyed = memo && t->size_low < 4096 && t->size_high < 4096;
  const std::uint64_t key = keyed ? verdict_key(row, *t) : 0;
  if (keyed) {
    if (const auto it = memo->verdicts.find(key); it != memo->verdicts.end()) {
      if (it->second) {
        *why = *it->second;
        return std::nullopt;
      }
      strings();
      return c;
    }
  }
  strings();
  std::optional<std::string> verdict;
  try {
    validate_case(c, *t);
  } catch (const SemanticsError& e) {
    verdict = e.what();
  } catch (const UsageError& e) {
    verdict = e.what();
  }
  if (keyed) memo->verdicts.emplace(key, verdict);
  if (!verdict) return c;
  *why = *verdict;
  return std::nullopt;
}

// A scope as tables over the values of routine x form x communicator, the
// three dimensions a target names (the others are crossed in full).
bool target_matches(const ScopeTarget& t, const std::string& routine, std::string_view mode,
                    bool inter) {
  if (t.routine != "*" && t.routine != routine) return false;
  if (t.comm != "*" && t.comm != "any" && t.comm != (inter ? "inter" : "intra")) return false;
  for (const std::string& m : t.modes)
    if (m == "*" || m == mode) return true;
  return false;
}

struct ScopeTable {
  bool all = true;  // no scope: the whole space
  std::size_t forms = 0, comms = 0;
  std::vector<char> rfc;                 // [routine][form][comm]: in scope
  std::vector<char> rf;                  // [routine][form]: with some communicator in scope
  std::vector<std::vector<char>> value;  // [dim][value]: some in-scope triple has it
  bool has(int r, int f, int c) const {
    return all || rfc[(static_cast<std::size_t>(r) * forms + static_cast<std::size_t>(f)) * comms +
                      static_cast<std::size_t>(c)];
  }
  bool has_rf(int r, int f) const {
    return all || rf[static_cast<std::size_t>(r) * forms + static_cast<std::size_t>(f)];
  }
  bool has_value(int d, int v) const {
    return all || value[static_cast<std::size_t>(d)][static_cast<std::size_t>(v)];
  }
  // An in-scope routine, form and communicator that agree with the values a
  // tuple names of them (`prefer`'s own where it is in scope), or false.
  bool complete(const std::vector<int>& dims, const std::vector<int>& values, Row* prefer) const {
    auto named = [&](int d, int fallback) {
      for (std::size_t i = 0; i < dims.size(); ++i)
        if (dims[i] == d) return values[i];
      return fallback;
    };
    Row& p = *prefer;
    p[kRoutine] = named(kRoutine, p[kRoutine]);
    p[kForm] = named(kForm, p[kForm]);
    p[kComm] = named(kComm, p[kComm]);
    if (has(p[kRoutine], p[kForm], p[kComm])) return true;
    const int routines = static_cast<int>(rfc.size() / (forms * comms));
    for (int r = 0; r < routines; ++r)
      for (int f = 0; f < static_cast<int>(forms); ++f)
        for (int c = 0; c < static_cast<int>(comms); ++c)
          if (named(kRoutine, r) == r && named(kForm, f) == f && named(kComm, c) == c &&
              has(r, f, c)) {
            p[kRoutine] = r;
            p[kForm] = f;
            p[kComm] = c;
            return true;
          }
    return false;
  }
};

bool inter_shape(const std::string& comm) { return comm.rfind("inter", 0) == 0; }

ScopeTable scope_table(const Scope& scope) {
  ScopeTable t;
  if (scope.empty()) return t;
  t.all = false;
  const auto& dims = dimensions();
  const Values& v = values();
  const std::size_t routines = dims[kRoutine].values.size();
  t.forms = dims[kForm].values.size();
  t.comms = dims[kComm].values.size();
  t.rfc.assign(routines * t.forms * t.comms, 0);
  t.rf.assign(routines * t.forms, 0);
  t.value.resize(kDims);
  for (int d = 0; d < kDims; ++d)
    t.value[static_cast<std::size_t>(d)].assign(dims[static_cast<std::size_t>(d)].values.size(),
                                                d == kRoutine || d == kForm || d == kComm ? 0 : 1);
  for (std::size_t r = 0; r < routines; ++r)
    for (std::size_t f = 0; f < t.forms; ++f)
      for (std::size_t c = 0; c < t.comms; ++c) {
        bool in = false;
        for (const ScopeTarget& target : scope)
          in = in || target_matches(target, dims[kRoutine].values[r], mode_name(v.mode[f]),
                                    inter_shape(dims[kComm].values[c]));
        if (!in) continue;
        t.rfc[(r * t.forms + f) * t.comms + c] = 1;
        t.rf[r * t.forms + f] = 1;
        t.value[kRoutine][r] = t.value[kForm][f] = t.value[kComm][c] = 1;
      }
  return t;
}

}  // namespace

std::optional<Case> realize(const Row& row, const ShapeTopology& shapes, std::uint64_t seed,
                            std::string* why) {
  return realize_row(row, shapes, seed, why, nullptr);
}

std::vector<std::pair<std::string, std::string>> values_of(const Row& row) {
  std::vector<std::pair<std::string, std::string>> out;
  const auto& dims = dimensions();
  for (std::size_t d = 0; d < dims.size(); ++d)
    out.emplace_back(dims[d].name, dims[d].values[static_cast<std::size_t>(row[d])]);
  return out;
}

bool in_scope(const Row& row, const Scope& scope) {
  if (scope.empty()) return true;
  const auto& dims = dimensions();
  for (const ScopeTarget& t : scope)
    if (target_matches(t, dims[kRoutine].values[static_cast<std::size_t>(row[kRoutine])],
                       mode_name(values().mode[static_cast<std::size_t>(row[kForm])]),
                       inter_shape(dims[kComm].values[static_cast<std::size_t>(row[kComm])])))
      return true;
  return false;
}

std::string describe(const Scope& scope) {
  std::string s;
  for (const ScopeTarget& t : scope) {
    if (!s.empty()) s += ";";
    s += t.routine + ":";
    for (std::size_t i = 0; i < t.modes.size(); ++i) s += (i ? "+" : "") + t.modes[i];
    s += ":" + t.comm;
  }
  return s;
}

long long tuples_held(const std::vector<Row>& rows, int strength) {
  KeySet held;
  for (const auto& s : dim_sets(strength))
    for (const Row& r : rows) held.insert(key_of(s, r));
  return static_cast<long long>(held.size());
}

Coverage covering_array(int strength, const ShapeTopology& shapes, std::uint64_t seed,
                        bool with_invalid, const Availability& available, const Scope& scope) {
  if (strength < 1 || strength > 3) throw UsageError("the crossing strength is 1, 2 or 3");
  const auto& dims = dimensions();
  // Validity depends on the comm shape's topology; ask once per shape.
  Memo memo;
  for (const std::string& shape : dims[kComm].values) memo.topology.push_back(shapes(shape));
  ShapeTopology cached = [&](const std::string& s) {
    const auto& names = dims[kComm].values;
    return memo.topology[static_cast<std::size_t>(std::find(names.begin(), names.end(), s) -
                                                  names.begin())];
  };
  // Every valid row of the space, and apart the valid rows the library
  // cannot run, each with its reason.
  std::vector<Row> valid;
  std::vector<std::pair<Row, std::string>> unavailable;
  Row row(kDims, 0);
  std::string why;
  // Concurrency is the innermost dimension and only adds its own condition
  // (concurrency_conflict): the row with one call is realized in full, the
  // others are that case with the concurrency set.
  static_assert(kConcurrency == kDims - 1, "concurrency is the last dimension");
  // (The row's case is `single` itself, its concurrency set in place: no
  // copy of a case per row of the space.)
  std::optional<Case> single;
  // The rows out of scope are skipped where the odometer stands: a routine
  // and form no target names skip every row below them, a communicator
  // the rows of its bindings and concurrencies.
  const ScopeTable in = scope_table(scope);
  // Moves the odometer on at dimension d (the dimensions after it back to
  // their first value); false after the last row.
  auto advance = [&](int d) {
    for (int e = d + 1; e < kDims; ++e) row[static_cast<std::size_t>(e)] = 0;
    while (d >= 0 && ++row[static_cast<std::size_t>(d)] ==
                         static_cast<int>(dims[static_cast<std::size_t>(d)].values.size()))
      row[static_cast<std::size_t>(d--)] = 0;
    return d >= 0;
  };
  for (;;) {
    if (!in.all) {
      if (!in.has_rf(row[kRoutine], row[kForm])) {
        if (!advance(kForm)) break;
        continue;
      }
      if (!in.has(row[kRoutine], row[kForm], row[kComm])) {
        if (!advance(kComm)) break;
        continue;
      }
    }
    bool ok = false;
    if (row[kConcurrency] == 0) {
      single = realize_row(row, cached, seed, &why, &memo);
      ok = single.has_value();
    } else if (single) {
      single->concurrency = dims[kConcurrency].values[static_cast<std::size_t>(row[kConcurrency])];
      ok = concurrency_conflict(*single).empty();
    }
    if (ok) {
      std::optional<std::string> lacks = available ? available(*single) : std::nullopt;
      if (lacks)
        unavailable.emplace_back(row, *lacks);
      else
        valid.push_back(row);
    }
    int d = kDims - 1;
    while (d >= 0 && ++row[d] == static_cast<int>(dims[d].values.size())) row[d--] = 0;
    if (d < 0) break;
  }
  Coverage cov;
  cov.strength = strength;
  cov.scope = scope;
  cov.valid_rows = static_cast<long long>(valid.size());
  cov.unavailable_rows = static_cast<long long>(unavailable.size());
  const auto sets = dim_sets(strength);
  // Each set's dimensions and strides flat, for the tens of millions of keys
  // made below (the same keys as key_of).
  std::vector<std::pair<std::size_t, std::uint64_t>> set_strides;
  for (const auto& s : sets)
    for (int d : s)
      set_strides.emplace_back(static_cast<std::size_t>(d), strides()[static_cast<std::size_t>(d)]);
  const std::size_t width = static_cast<std::size_t>(strength);
  auto keys_of = [&](const Row& r, auto&& each) {
    for (std::size_t i = 0; i < set_strides.size(); i += width) {
      std::uint64_t k = 0;
      for (std::size_t j = i; j < i + width; ++j)
        k += static_cast<std::uint64_t>(r[set_strides[j].first] + 1) * set_strides[j].second;
      each(k, i / width);
    }
  };
  KeySet uncovered;
  for (const Row& r : valid) keys_of(r, [&](std::uint64_t k, std::size_t) { uncovered.insert(k); });
  cov.valid_tuples = static_cast<long long>(uncovered.size());
  // The keys of the valid tuples, kept for the invalid ones below.
  const KeySet valid_tuple_keys = with_invalid ? uncovered : KeySet();
  // The valid tuples only unavailable rows hold, with the first one's reason.
  {
    KeySet listed;
    for (const auto& [r, reason] : unavailable)
      for (const auto& s : sets) {
        const std::uint64_t k = key_of(s, r);
        if (uncovered.count(k) || !listed.insert(k).second) continue;
        Tuple t;
        t.dims = s;
        for (int d : s) t.values.push_back(r[d]);
        cov.unavailable.emplace_back(std::move(t), reason);
      }
  }
  std::mt19937_64 rng(seed * 0x9E3779B97F4A7C15ull + static_cast<std::uint64_t>(strength));
  auto gain = [&](const Row& r) {
    int g = 0;
    keys_of(r, [&](std::uint64_t k, std::size_t) { g += uncovered.count(k) ? 1 : 0; });
    return g;
  };
  // Greedy: take an uncovered tuple, and of the valid rows that hold it (a
  // sample), the one that covers the most uncovered tuples.
  std::size_t pos = 0;  // the valid rows before pos hold covered tuples only
  // The valid rows' values packed a byte each (every dimension has fewer
  // than 256 values): the search for the rows that hold a tuple reads them
  // in one pass, not a vector per row.
  std::vector<std::uint8_t> packed(valid.size() * kDims);
  for (std::size_t i = 0; i < valid.size(); ++i)
    for (int d = 0; d < kDims; ++d) packed[i * kDims + d] = static_cast<std::uint8_t>(valid[i][d]);
  // The valid rows that hold each value of each dimension, in their order:
  // the rows that hold a tuple are those of its rarest value that hold the
  // others too, found in ascending order as a scan of all rows would.
  std::vector<std::vector<std::vector<std::uint32_t>>> with_value(kDims);
  for (int d = 0; d < kDims; ++d)
    with_value[static_cast<std::size_t>(d)].resize(dims[static_cast<std::size_t>(d)].values.size());
  for (std::size_t i = 0; i < valid.size(); ++i)
    for (int d = 0; d < kDims; ++d)
      with_value[static_cast<std::size_t>(d)][packed[i * kDims + d]].push_back(
          static_cast<std::uint32_t>(i));
  while (!uncovered.empty()) {
    // The first uncovered tuple in the order of the valid rows (deterministic).
    const Row* first = nullptr;
    std::vector<int> first_set;
    for (; pos < valid.size() && !first; ++pos) {
      keys_of(valid[pos], [&](std::uint64_t k, std::size_t set) {
        if (!first && uncovered.count(k)) {
          first = &valid[pos];
          first_set = sets[set];
        }
      });
      if (first) break;
    }
    const std::vector<std::uint32_t>* rarest = nullptr;
    for (int d : first_set) {
      const auto& list =
          with_value[static_cast<std::size_t>(d)][static_cast<std::size_t>((*first)[d])];
      if (!rarest || list.size() < rarest->size()) rarest = &list;
    }
    std::vector<const Row*> holders;
    for (const std::uint32_t i : *rarest) {
      const std::uint8_t* r = &packed[i * kDims];
      bool holds = true;
      for (int d : first_set) holds = holds && r[d] == (*first)[d];
      if (holds) holders.push_back(&valid[i]);
    }
    std::shuffle(holders.begin(), holders.end(), rng);
    if (holders.size() > 64) holders.resize(64);
    const Row* best = holders.front();
    int best_gain = -1;
    for (const Row* h : holders) {
      const int g = gain(*h);
      if (g > best_gain) {
        best_gain = g;
        best = h;
      }
    }
    keys_of(*best, [&](std::uint64_t k, std::size_t) { uncovered.erase(k); });
    cov.rows.push_back(*best);
  }
  cov.covered_tuples = cov.valid_tuples;
  if (with_invalid) {
    // Every tuple no valid row holds, with the reason of a row that holds it:
    // a valid row's other values where one has the tuple's first value.
    KeySet valid_keys = valid_tuple_keys;
    for (const auto& u : unavailable)
      keys_of(u.first, [&](std::uint64_t k, std::size_t) { valid_keys.insert(k); });
    // The first valid row, else the first unavailable one, with a value.
    auto probe_with = [&](int d, int value) -> const Row* {
      for (const std::uint32_t i :
           with_value[static_cast<std::size_t>(d)][static_cast<std::size_t>(value)])
        return &valid[i];
      for (const auto& u : unavailable)
        if (u.first[static_cast<std::size_t>(d)] == value) return &u.first;
      return nullptr;
    };
    for (const auto& s : sets) {
      Row v(kDims, 0);
      std::function<void(std::size_t)> each = [&](std::size_t i) {
        if (i == s.size()) {
          if (valid_keys.count(key_of(s, v))) return;
          std::vector<int> named;
          for (int d : s) named.push_back(v[d]);
          const Row* holder = probe_with(s[0], v[s[0]]);
          Row probe = holder ? *holder : v;
          // Out of scope (no in-scope routine, form and communicator has
          // these values): not invalid, only not this array's concern.
          if (!in.complete(s, named, &probe)) return;
          for (int d : s) probe[d] = v[d];
          std::string reason;
          realize_row(probe, cached, seed, &reason, &memo);
          Tuple t;
          t.dims = s;
          for (int d : s) t.values.push_back(v[d]);
          cov.invalid.emplace_back(t, reason.empty() ? "no valid call has these values" : reason);
          return;
        }
        for (std::size_t k = 0; k < dims[s[i]].values.size(); ++k) {
          v[s[i]] = static_cast<int>(k);
          each(i + 1);
        }
      };
      each(0);
    }
  }
  return cov;
}

std::string to_json(const Coverage& cov, int processes) {
  auto q = [](const std::string& s) { return "\"" + json::escape(s) + "\""; };
  auto tuples = [&](const std::vector<std::pair<Tuple, std::string>>& list) {
    std::string o = "[";
    for (std::size_t i = 0; i < list.size(); ++i) {
      const Tuple& t = list[i].first;
      o += i ? ",{" : "{";
      o += "\"values\":{";
      for (std::size_t k = 0; k < t.dims.size(); ++k) {
        const Dimension& d = dimensions()[static_cast<std::size_t>(t.dims[k])];
        o += (k ? "," : "") + q(d.name) + ":" + q(d.values[static_cast<std::size_t>(t.values[k])]);
      }
      o += "},\"reason\":" + q(list[i].second) + "}";
    }
    return o + "]";
  };
  std::string o = "{\"strength\":" + std::to_string(cov.strength) +
                  ",\"processes\":" + std::to_string(processes) + ",\"dimensions\":[";
  const auto& dims = dimensions();
  const ScopeTable in = scope_table(cov.scope);
  for (std::size_t d = 0; d < dims.size(); ++d) {
    o += (d ? ",{" : "{") + std::string("\"name\":") + q(dims[d].name) + ",\"values\":[";
    bool first = true;
    for (std::size_t v = 0; v < dims[d].values.size(); ++v) {
      if (!in.has_value(static_cast<int>(d), static_cast<int>(v))) continue;
      o += (first ? "" : ",") + q(dims[d].values[v]);
      first = false;
    }
    o += "]}";
  }
  o += "],\"cases\":" + std::to_string(cov.rows.size()) +
       ",\"valid_calls\":" + std::to_string(cov.valid_rows) +
       ",\"valid_tuples\":" + std::to_string(cov.valid_tuples) +
       ",\"covered_tuples\":" + std::to_string(cov.covered_tuples) +
       ",\"unavailable_calls\":" + std::to_string(cov.unavailable_rows) +
       (cov.scope.empty() ? "" : ",\"scope\":" + q(describe(cov.scope))) +
       ",\"invalid\":" + tuples(cov.invalid) + ",\"unavailable\":" + tuples(cov.unavailable) + "}";
  return o;
}

}  // namespace ordo::ref::crossing
