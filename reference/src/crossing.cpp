#include "ordo/reference/crossing.h"

#include <algorithm>
#include <map>
#include <random>
#include <unordered_set>

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
};

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

std::optional<Case> realize(const Row& row, const ShapeTopology& shapes, std::uint64_t seed,
                            std::string* why) {
  const auto& dims = dimensions();
  auto value = [&](Dim d) -> const std::string& {
    return dims[d].values[static_cast<std::size_t>(row[d])];
  };
  Case c;
  c.seed = seed;
  c.routine = *routine_from_name(value(kRoutine));
  const std::string& form = value(kForm);
  c.mode = form.rfind("nonblocking", 0) == 0  ? Mode::nonblocking
           : form.rfind("persistent", 0) == 0 ? Mode::persistent
                                              : Mode::blocking;
  c.large_count = form.size() > 2 && form.compare(form.size() - 2, 2, "_c") == 0;
  const bool local = c.routine == Routine::reduce_local || c.routine == Routine::reduce_locals;
  c.comm = value(kComm);
  if (local && c.comm != "world") {
    *why = "a local reduction takes no communicator";
    return std::nullopt;
  }
  if (local && c.mode != Mode::blocking) {
    *why = std::string(routine_name(c.routine)) + " has no " + std::string(mode_name(c.mode)) +
           " form";
    return std::nullopt;
  }
  const std::optional<Topology> t = local ? Topology{false, 1, 0} : shapes(c.comm);
  if (!t) {
    *why = "the communicator shape " + c.comm + " does not exist at this number of processes";
    return std::nullopt;
  }
  const TypeClass& type = kTypes[row[kType]];
  const std::string& op = value(kOp);
  const bool witness = op != "predefined" && op != "minloc";
  const char* datatype = witness ? type.cells : type.predefined;
  if (!*datatype) {
    *why =
        witness
            ? std::string("ordo's witness ops take whole cells of four 4-byte integers, not the ") +
                  type.name + " datatype"
            : std::string("a predefined op takes a predefined datatype, not a derived one (") +
                  type.name + ")";
    return std::nullopt;
  }
  c.datatype = datatype;
  c.op = op == "predefined"                ? "MPI_SUM"
         : op == "minloc"                  ? "MPI_MINLOC"
         : op == "noncommutative"          ? "witness.tracer"
         : op == "noncommutative-c"        ? "witness.tracer-c"
         : op == "declared-noncommutative" ? "witness.sum-declared-noncommutative"
                                           : "witness.multiset";
  c.count = kCounts[row[kCount]];
  c.in_place = value(kInPlace) == "yes";
  const std::string& root = value(kRoot);
  if (c.routine != Routine::reduce && root != "first") {
    *why = "only MPI_Reduce takes a root";
    return std::nullopt;
  }
  if (root == "other-group" && !t->inter) {
    *why = "only an intercommunicator has a second group to hold the root";
    return std::nullopt;
  }
  // The root's group: the low one, or the high one (its last process).
  c.root_in_high_group = root == "other-group";
  const int group = t->size_low;
  c.root = root == "first"         ? 0
           : root == "middle"      ? group / 2
           : root == "other-group" ? t->size_high - 1
                                   : group - 1;
  if (root != "first" && root != "other-group" && group < (root == "middle" ? 3 : 2)) {
    *why = "the root's group has fewer than " + std::string(root == "middle" ? "3" : "2") +
           " processes: no other root";
    return std::nullopt;
  }
  const std::string& concurrency = value(kConcurrency);
  c.concurrency = concurrency == "single" ? "" : concurrency;
  if (const std::string conflict = concurrency_conflict(c); !conflict.empty()) {
    *why = conflict;
    return std::nullopt;
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
  c.binding = value(kBinding);
  if (c.binding != "c" && c.routine == Routine::reduce_locals) {
    *why = "the MPI_Reduce_locals proposal defines no Fortran binding";
    return std::nullopt;
  }
  // MPI-4.1 Chapter 19: the large-count (INTEGER(KIND=MPI_COUNT_KIND))
  // procedures, MPI_Op_create_c among them, are in the mpi_f08 module only.
  if (c.binding == "f90" && c.large_count) {
    *why = "the mpi module has no large-count forms (only mpi_f08 has them)";
    return std::nullopt;
  }
  if (c.binding == "f90" && op == "noncommutative-c") {
    *why = "the mpi module has no MPI_Op_create_c (large-count user functions are mpi_f08's)";
    return std::nullopt;
  }
  try {
    validate_case(c, *t);
  } catch (const SemanticsError& e) {
    *why = e.what();
    return std::nullopt;
  } catch (const UsageError& e) {
    *why = e.what();
    return std::nullopt;
  }
  return c;
}

std::vector<std::pair<std::string, std::string>> values_of(const Row& row) {
  std::vector<std::pair<std::string, std::string>> out;
  const auto& dims = dimensions();
  for (std::size_t d = 0; d < dims.size(); ++d)
    out.emplace_back(dims[d].name, dims[d].values[static_cast<std::size_t>(row[d])]);
  return out;
}

long long tuples_held(const std::vector<Row>& rows, int strength) {
  KeySet held;
  for (const auto& s : dim_sets(strength))
    for (const Row& r : rows) held.insert(key_of(s, r));
  return static_cast<long long>(held.size());
}

Coverage covering_array(int strength, const ShapeTopology& shapes, std::uint64_t seed,
                        bool with_invalid, const Availability& available) {
  if (strength < 1 || strength > 3) throw UsageError("the crossing strength is 1, 2 or 3");
  const auto& dims = dimensions();
  // Validity depends on the comm shape's topology; ask once per shape.
  std::map<std::string, std::optional<Topology>> topo;
  ShapeTopology cached = [&](const std::string& s) {
    auto it = topo.find(s);
    if (it == topo.end()) it = topo.emplace(s, shapes(s)).first;
    return it->second;
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
  for (;;) {
    bool ok = false;
    if (row[kConcurrency] == 0) {
      single = realize(row, cached, seed, &why);
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
  cov.valid_rows = static_cast<long long>(valid.size());
  cov.unavailable_rows = static_cast<long long>(unavailable.size());
  const auto sets = dim_sets(strength);
  KeySet uncovered;
  for (const Row& r : valid)
    for (const auto& s : sets) uncovered.insert(key_of(s, r));
  cov.valid_tuples = static_cast<long long>(uncovered.size());
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
    for (const auto& s : sets) g += uncovered.count(key_of(s, r)) ? 1 : 0;
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
  while (!uncovered.empty()) {
    // The first uncovered tuple in the order of the valid rows (deterministic).
    const Row* first = nullptr;
    std::vector<int> first_set;
    for (; pos < valid.size() && !first; ++pos) {
      for (const auto& s : sets)
        if (uncovered.count(key_of(s, valid[pos]))) {
          first = &valid[pos];
          first_set = s;
          break;
        }
      if (first) break;
    }
    std::vector<const Row*> holders;
    for (std::size_t i = 0; i < valid.size(); ++i) {
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
    for (const auto& s : sets) uncovered.erase(key_of(s, *best));
    cov.rows.push_back(*best);
  }
  cov.covered_tuples = cov.valid_tuples;
  if (with_invalid) {
    // Every tuple no valid row holds, with the reason of a row that holds it:
    // a valid row's other values where one has the tuple's first value.
    KeySet valid_keys;
    for (const Row& r : valid)
      for (const auto& s : sets) valid_keys.insert(key_of(s, r));
    for (const auto& u : unavailable)
      for (const auto& s : sets) valid_keys.insert(key_of(s, u.first));
    std::vector<Row> probes = valid;
    for (const auto& u : unavailable) probes.push_back(u.first);
    for (const auto& s : sets) {
      Row v(kDims, 0);
      std::function<void(std::size_t)> each = [&](std::size_t i) {
        if (i == s.size()) {
          if (valid_keys.count(key_of(s, v))) return;
          Row probe = v;
          for (const Row& r : probes)
            if (r[s[0]] == v[s[0]]) {
              probe = r;
              break;
            }
          for (int d : s) probe[d] = v[d];
          std::string reason;
          realize(probe, cached, seed, &reason);
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
  for (std::size_t d = 0; d < dims.size(); ++d) {
    o += (d ? ",{" : "{") + std::string("\"name\":") + q(dims[d].name) + ",\"values\":[";
    for (std::size_t v = 0; v < dims[d].values.size(); ++v)
      o += (v ? "," : "") + q(dims[d].values[v]);
    o += "]}";
  }
  o += "],\"cases\":" + std::to_string(cov.rows.size()) +
       ",\"valid_calls\":" + std::to_string(cov.valid_rows) +
       ",\"valid_tuples\":" + std::to_string(cov.valid_tuples) +
       ",\"covered_tuples\":" + std::to_string(cov.covered_tuples) +
       ",\"unavailable_calls\":" + std::to_string(cov.unavailable_rows) +
       ",\"invalid\":" + tuples(cov.invalid) + ",\"unavailable\":" + tuples(cov.unavailable) + "}";
  return o;
}

}  // namespace ordo::ref::crossing
