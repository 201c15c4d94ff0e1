// The crossing of the case space: rows realize valid cases or say why not,
// and a covering array holds every valid pair (strength 2) or triple
// (strength 3), checked here against an independent count over the whole
// space.
#include "ordo/reference/crossing.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "ordo/reference/datatype.h"
#include "ordo/reference/errors.h"
#include "ordo/reference/json.h"
#include "zoo_shapes.h"

using namespace ordo::ref;
namespace x = ordo::ref::crossing;
using ordo::ref::test::zoo_at;

namespace {

int index_of(int dim, const std::string& value) {
  const auto& v = x::dimensions()[static_cast<std::size_t>(dim)].values;
  return static_cast<int>(std::find(v.begin(), v.end(), value) - v.begin());
}

x::Row row(const std::string& routine, const std::string& form, const std::string& op,
           const std::string& type, const std::string& count, const std::string& root,
           const std::string& in_place, const std::string& comm,
           const std::string& concurrency = "single", const std::string& binding = "c") {
  return {index_of(0, routine), index_of(1, form),       index_of(2, op),       index_of(3, type),
          index_of(4, count),   index_of(5, root),       index_of(6, in_place), index_of(7, comm),
          index_of(8, binding), index_of(9, concurrency)};
}

// Every valid row of the space, enumerated here on its own.
std::vector<x::Row> all_valid(const x::ShapeTopology& shapes) {
  std::vector<x::Row> out;
  const auto& dims = x::dimensions();
  x::Row r(dims.size(), 0);
  std::string why;
  for (;;) {
    if (x::realize(r, shapes, 1, &why)) out.push_back(r);
    int d = static_cast<int>(dims.size()) - 1;
    while (d >= 0 && ++r[static_cast<std::size_t>(d)] ==
                         static_cast<int>(dims[static_cast<std::size_t>(d)].values.size()))
      r[static_cast<std::size_t>(d--)] = 0;
    if (d < 0) break;
  }
  return out;
}

std::set<std::vector<int>> pairs_of(const std::vector<x::Row>& rows) {
  std::set<std::vector<int>> s;
  for (const auto& r : rows)
    for (std::size_t a = 0; a < r.size(); ++a)
      for (std::size_t b = a + 1; b < r.size(); ++b)
        s.insert({static_cast<int>(a), r[a], static_cast<int>(b), r[b]});
  return s;
}

}  // namespace

TEST(Crossing, the_dimensions_are_those_a_case_expresses) {
  std::vector<std::string> names;
  for (const auto& d : x::dimensions()) names.push_back(d.name);
  EXPECT_EQ(names, (std::vector<std::string>{"routine", "form", "op", "datatype", "count", "root",
                                             "in_place", "comm", "binding", "concurrency"}));
}

TEST(Crossing, a_row_realizes_its_case_or_says_why_it_is_no_valid_call) {
  std::string why;
  const auto c = x::realize(row("reduce", "persistent_c", "commutative-user", "vector-holes", "7",
                                "last", "no", "reversed"),
                            zoo_at(4), 9, &why);
  ASSERT_TRUE(c) << why;
  EXPECT_EQ(c->routine, Routine::reduce);
  EXPECT_EQ(c->mode, Mode::persistent);
  EXPECT_TRUE(c->large_count);
  EXPECT_EQ(c->op, "witness.multiset");
  EXPECT_EQ(c->datatype, "vector(2,2,3,MPI_INT)");
  EXPECT_EQ(c->count, 7);
  EXPECT_EQ(c->root, 3);
  EXPECT_EQ(c->comm, "reversed");
  EXPECT_EQ(c->seed, 9u);

  EXPECT_FALSE(
      x::realize(row("allreduce", "blocking", "predefined", "basic", "1", "last", "no", "world"),
                 zoo_at(4), 1, &why));
  EXPECT_EQ(why, "only MPI_Reduce takes a root");
  EXPECT_FALSE(
      x::realize(row("scan", "blocking", "predefined", "basic", "1", "first", "no", "inter-1-n"),
                 zoo_at(4), 1, &why));
  EXPECT_FALSE(why.empty());
  EXPECT_FALSE(
      x::realize(row("reduce", "blocking", "predefined", "contiguous", "1", "first", "no", "world"),
                 zoo_at(4), 1, &why));
  EXPECT_NE(why.find("predefined op"), std::string::npos) << why;
  EXPECT_FALSE(x::realize(
      row("allreduce", "blocking", "predefined", "basic", "1", "first", "no", "inter-halves"),
      zoo_at(3), 1, &why));
  EXPECT_NE(why.find("does not exist"), std::string::npos) << why;
}

TEST(Crossing, concurrency_takes_the_forms_that_have_a_request) {
  std::string why;
  const auto c = x::realize(row("allreduce", "nonblocking_c", "noncommutative", "vector-holes", "7",
                                "first", "no", "cart", "freed"),
                            zoo_at(4), 1, &why);
  ASSERT_TRUE(c) << why;
  EXPECT_EQ(c->concurrency, "freed");
  const auto t = x::realize(
      row("scan", "persistent", "predefined", "basic", "7", "first", "no", "world", "test"),
      zoo_at(4), 1, &why);
  ASSERT_TRUE(t) << why;
  EXPECT_EQ(t->concurrency, "test");
  const auto one = x::realize(
      row("scan", "blocking", "predefined", "basic", "7", "first", "no", "world", "single"),
      zoo_at(4), 1, &why);
  ASSERT_TRUE(one) << why;
  EXPECT_EQ(one->concurrency, "");
  EXPECT_FALSE(x::realize(
      row("scan", "blocking", "predefined", "basic", "7", "first", "no", "world", "test"),
      zoo_at(4), 1, &why));
  EXPECT_EQ(why, "a blocking call has no request to test");
  EXPECT_FALSE(x::realize(
      row("scan", "persistent", "predefined", "basic", "7", "first", "no", "world", "outstanding"),
      zoo_at(4), 1, &why));
  EXPECT_NE(why.find("nonblocking"), std::string::npos) << why;
  EXPECT_FALSE(x::realize(
      row("scan", "nonblocking", "predefined", "basic", "7", "first", "no", "world", "freed"),
      zoo_at(4), 1, &why));
  EXPECT_EQ(why, "nothing to free: a predefined op on a predefined datatype");
}

TEST(Crossing, the_root_may_sit_in_an_intercommunicators_other_group) {
  std::string why;
  // inter-permuted at 5 processes: 3 even ranks (low group), 2 odd ones.
  const auto c = x::realize(row("reduce", "nonblocking", "noncommutative", "contiguous", "7",
                                "other-group", "no", "inter-permuted"),
                            zoo_at(5), 1, &why);
  ASSERT_TRUE(c) << why;
  EXPECT_TRUE(c->root_in_high_group);
  EXPECT_EQ(c->root, 1);  // the high group's last process
  const auto low = x::realize(
      row("reduce", "blocking", "predefined", "basic", "7", "last", "no", "inter-permuted"),
      zoo_at(5), 1, &why);
  ASSERT_TRUE(low) << why;
  EXPECT_FALSE(low->root_in_high_group);
  EXPECT_EQ(low->root, 2);
  EXPECT_FALSE(x::realize(
      row("reduce", "blocking", "predefined", "basic", "7", "other-group", "no", "merged"),
      zoo_at(5), 1, &why));
  EXPECT_EQ(why, "only an intercommunicator has a second group to hold the root");
  EXPECT_FALSE(x::realize(
      row("allreduce", "blocking", "predefined", "basic", "7", "other-group", "no", "inter-1-n"),
      zoo_at(5), 1, &why));
  EXPECT_EQ(why, "only MPI_Reduce takes a root");
}

TEST(Crossing, a_strength_2_array_holds_every_valid_pair_and_only_valid_rows) {
  for (int p : {1, 2, 5}) {
    SCOPED_TRACE("p = " + std::to_string(p));
    const auto shapes = zoo_at(p);
    const x::Coverage cov = x::covering_array(2, shapes, 3, /*with_invalid=*/true);
    const auto valid = all_valid(shapes);
    const auto want = pairs_of(valid);
    EXPECT_EQ(cov.valid_rows, static_cast<long long>(valid.size()));
    EXPECT_EQ(cov.valid_tuples, static_cast<long long>(want.size()));
    EXPECT_EQ(pairs_of(cov.rows), want);
    EXPECT_EQ(x::tuples_held(cov.rows, 2), static_cast<long long>(want.size()));
    EXPECT_EQ(x::tuples_held({cov.rows.front()}, 2), 45);  // 10 dimensions: 45 pairs in one row
    EXPECT_DOUBLE_EQ(cov.percent(), 100.0);
    std::string why;
    for (const auto& r : cov.rows) EXPECT_TRUE(x::realize(r, shapes, 3, &why)) << why;
    // Far fewer rows than valid calls.
    EXPECT_LT(cov.rows.size() * 20, valid.size());
    // The invalid pairs: all the others, each with a reason.
    long long all_pairs = 0;
    const auto& dims = x::dimensions();
    for (std::size_t a = 0; a < dims.size(); ++a)
      for (std::size_t b = a + 1; b < dims.size(); ++b)
        all_pairs += static_cast<long long>(dims[a].values.size() * dims[b].values.size());
    EXPECT_EQ(static_cast<long long>(cov.invalid.size()) + cov.valid_tuples, all_pairs);
    for (const auto& [t, reason] : cov.invalid) EXPECT_FALSE(reason.empty()) << t.describe();
  }
}

TEST(Crossing, the_array_is_the_same_for_the_same_seed) {
  const auto a = x::covering_array(2, zoo_at(4), 7);
  const auto b = x::covering_array(2, zoo_at(4), 7);
  EXPECT_EQ(a.rows, b.rows);
}

TEST(Crossing, a_strength_3_array_holds_every_valid_triple) {
  const auto shapes = zoo_at(4);
  const x::Coverage cov = x::covering_array(3, shapes, 1);
  const auto valid = all_valid(shapes);
  std::set<std::vector<int>> want, got;
  auto triples = [](const std::vector<x::Row>& rows, std::set<std::vector<int>>* s) {
    for (const auto& r : rows)
      for (std::size_t a = 0; a < r.size(); ++a)
        for (std::size_t b = a + 1; b < r.size(); ++b)
          for (std::size_t c = b + 1; c < r.size(); ++c)
            s->insert(
                {static_cast<int>(a), r[a], static_cast<int>(b), r[b], static_cast<int>(c), r[c]});
  };
  triples(valid, &want);
  triples(cov.rows, &got);
  EXPECT_EQ(got, want);
  EXPECT_EQ(cov.valid_tuples, static_cast<long long>(want.size()));
}

TEST(Crossing, reduce_locals_has_no_large_count_binding) {
  std::string why;
  EXPECT_FALSE(x::realize(row("reduce_locals", "blocking_c", "noncommutative", "contiguous", "7",
                              "first", "no", "world"),
                          zoo_at(2), 1, &why));
  EXPECT_EQ(why, "the MPI_Reduce_locals proposal defines no large-count (_c) binding");
  EXPECT_TRUE(x::realize(
      row("reduce_locals", "blocking", "noncommutative", "contiguous", "7", "first", "no", "world"),
      zoo_at(2), 1, &why))
      << why;
}

// The binding is a dimension: a Fortran row is the same call through
// mpi_f08 or mpi; what a module does not have (MPI-4.1 Chapter 19) is no
// valid call, with the reason.
TEST(Crossing, the_binding_is_a_dimension_and_a_module_without_a_form_says_so) {
  std::string why;
  const auto f08 = x::realize(row("allreduce", "persistent_c", "noncommutative-c", "contiguous",
                                  "7", "first", "yes", "reversed", "test", "f08"),
                              zoo_at(4), 1, &why);
  ASSERT_TRUE(f08) << why;
  EXPECT_EQ(f08->binding, "f08");
  EXPECT_TRUE(f08->large_count);
  const auto c = x::realize(row("allreduce", "persistent_c", "noncommutative-c", "contiguous", "7",
                                "first", "yes", "reversed", "test", "c"),
                            zoo_at(4), 1, &why);
  ASSERT_TRUE(c) << why;
  // Only the binding differs: the same call, so the same expected result.
  Case same = *f08;
  same.binding = "c";
  EXPECT_EQ(same.to_json(), c->to_json());
  EXPECT_FALSE(x::realize(row("allreduce", "blocking_c", "predefined", "basic", "7", "first", "no",
                              "world", "single", "f90"),
                          zoo_at(4), 1, &why));
  EXPECT_EQ(why, "the mpi module has no large-count forms (only mpi_f08 has them)");
  EXPECT_FALSE(x::realize(row("allreduce", "blocking", "noncommutative-c", "contiguous", "7",
                              "first", "no", "world", "single", "f90"),
                          zoo_at(4), 1, &why));
  EXPECT_EQ(why,
            "the mpi module has no MPI_Op_create_c (large-count user functions are mpi_f08's)");
  EXPECT_FALSE(x::realize(row("reduce_locals", "blocking", "noncommutative", "contiguous", "7",
                              "first", "no", "world", "single", "f08"),
                          zoo_at(4), 1, &why));
  EXPECT_EQ(why, "the MPI_Reduce_locals proposal defines no Fortran binding");
  const auto f90 = x::realize(row("scan", "persistent", "minloc", "fortran-pair", "7", "first",
                                  "no", "odd-even", "test", "f90"),
                              zoo_at(4), 1, &why);
  ASSERT_TRUE(f90) << why;
  EXPECT_EQ(f90->binding, "f90");
}

// A library without persistent collectives: the array holds every valid
// pair of the calls it can run, and the pairs only persistent calls hold
// are listed apart with the library's reason.
TEST(Crossing, pairs_only_calls_the_library_lacks_hold_are_listed_apart_with_its_reason) {
  const auto shapes = zoo_at(4);
  const x::Availability no_persistent = [](const Case& c) -> std::optional<std::string> {
    if (c.mode == Mode::persistent) return std::string("no persistent collectives here");
    return std::nullopt;
  };
  const x::Coverage cov = x::covering_array(2, shapes, 3, /*with_invalid=*/true, no_persistent);
  const int persistent = index_of(1, "persistent"), persistent_c = index_of(1, "persistent_c");
  std::vector<x::Row> runnable;
  long long lacking = 0;
  for (const auto& r : all_valid(shapes)) {
    if (r[1] == persistent || r[1] == persistent_c)
      ++lacking;
    else
      runnable.push_back(r);
  }
  const auto want = pairs_of(runnable);
  EXPECT_EQ(cov.valid_rows, static_cast<long long>(runnable.size()));
  EXPECT_EQ(cov.unavailable_rows, lacking);
  EXPECT_EQ(pairs_of(cov.rows), want);
  for (const auto& r : cov.rows) EXPECT_TRUE(r[1] != persistent && r[1] != persistent_c);
  // Every pair of the whole space is valid-and-runnable, unavailable or invalid.
  const auto all = pairs_of(all_valid(shapes));
  EXPECT_EQ(static_cast<long long>(cov.unavailable.size()),
            static_cast<long long>(all.size() - want.size()));
  for (const auto& [t, reason] : cov.unavailable) {
    EXPECT_EQ(reason, "no persistent collectives here");
    EXPECT_TRUE(t.dims[0] == 1 || t.dims[1] == 1) << t.describe();  // a pair with the form
  }
  // The invalid pairs are those of the whole space, as without the library.
  EXPECT_EQ(cov.invalid.size(), x::covering_array(2, shapes, 3, true).invalid.size());
}

TEST(Crossing, the_coverage_as_json_names_the_dimensions_and_the_listed_pairs) {
  const x::Availability no_c = [](const Case& c) -> std::optional<std::string> {
    if (c.large_count) return std::string("no \"_c\" bindings");
    return std::nullopt;
  };
  const x::Coverage cov = x::covering_array(2, zoo_at(3), 1, true, no_c);
  const std::string j = x::to_json(cov, 3);
  const ordo::json::Value v = ordo::json::parse(j);
  EXPECT_EQ(v.get("strength")->integer, 2);
  EXPECT_EQ(v.get("processes")->integer, 3);
  ASSERT_EQ(v.get("dimensions")->items.size(), x::dimensions().size());
  EXPECT_EQ(v.get("dimensions")->items[1].get_string("name"), "form");
  EXPECT_EQ(v.get("cases")->integer, static_cast<long long>(cov.rows.size()));
  EXPECT_EQ(v.get("valid_tuples")->integer, cov.valid_tuples);
  ASSERT_EQ(v.get("unavailable")->items.size(), cov.unavailable.size());
  ASSERT_EQ(v.get("invalid")->items.size(), cov.invalid.size());
  const auto& first = v.get("unavailable")->items.front();
  EXPECT_EQ(first.get_string("reason"), "no \"_c\" bindings");
  EXPECT_EQ(first.get("values")->fields.size(), 2u);
  EXPECT_EQ(x::values_of(cov.rows.front()).size(), x::dimensions().size());
  EXPECT_EQ(x::values_of(cov.rows.front())[0].first, "routine");
}

// The value-index datatype class: MINLOC on the pair MPI_Type_get_value_index
// returns; a library without the routine cannot run any of its calls, and
// the pairs only they hold are listed with its reason.
TEST(Crossing, the_value_index_class_is_a_minloc_pair_and_unavailable_without_the_routine) {
  std::string why;
  const auto c = x::realize(
      row("allreduce", "nonblocking", "minloc", "value-index", "7", "first", "no", "world"),
      zoo_at(3), 1, &why);
  ASSERT_TRUE(c) << why;
  EXPECT_EQ(c->op, "MPI_MINLOC");
  EXPECT_EQ(c->datatype, "value_index(MPI_DOUBLE,MPI_INT)");
  EXPECT_FALSE(x::realize(
      row("allreduce", "blocking", "predefined", "value-index", "7", "first", "no", "world"),
      zoo_at(3), 1, &why));
  EXPECT_NE(why.find("op.type-groups"), std::string::npos) << why;
  EXPECT_FALSE(x::realize(
      row("allreduce", "blocking", "noncommutative", "value-index", "7", "first", "no", "world"),
      zoo_at(3), 1, &why));
  // A predefined op on a predefined datatype: no handle to free.
  EXPECT_FALSE(x::realize(row("allreduce", "nonblocking", "minloc", "value-index", "7", "first",
                              "no", "world", "freed"),
                          zoo_at(3), 1, &why));
  EXPECT_EQ(why, "nothing to free: a predefined op on a predefined datatype");

  const auto shapes = zoo_at(3);
  const x::Availability no_value_index = [](const Case& k) -> std::optional<std::string> {
    if (Datatype::parse(k.datatype).uses_value_index())
      return std::string("the library has no MPI_Type_get_value_index (MPI-4.1 6.9.4)");
    return std::nullopt;
  };
  const x::Coverage cov = x::covering_array(2, shapes, 3, /*with_invalid=*/false, no_value_index);
  const int vi = index_of(3, "value-index");
  std::vector<x::Row> runnable;
  for (const auto& r : all_valid(shapes))
    if (r[3] != vi) runnable.push_back(r);
  EXPECT_EQ(pairs_of(cov.rows), pairs_of(runnable));
  EXPECT_EQ(cov.covered_tuples, cov.valid_tuples);
  ASSERT_FALSE(cov.unavailable.empty());
  for (const auto& [t, reason] : cov.unavailable) {
    EXPECT_NE(reason.find("MPI_Type_get_value_index"), std::string::npos);
    EXPECT_TRUE(t.dims[0] == 3 || t.dims[1] == 3) << t.describe();  // a pair with the datatype
  }
}

// A covering array per algorithm variant (#39): the scope a variant's
// algorithm serves (its routines, modes and communicator kind) is crossed
// on its own, every valid pair of its rows held, no row out of it.
namespace {

// Whether a row is in a scope, decided here from the dimensions' names
// (the form's mode is its name before "_c"; an intercommunicator's shape
// starts with "inter").
bool in_scope_here(const x::Row& r, const x::Scope& scope) {
  const auto& dims = x::dimensions();
  const std::string routine = dims[0].values[static_cast<std::size_t>(r[0])];
  std::string mode = dims[1].values[static_cast<std::size_t>(r[1])];
  if (mode.size() > 2 && mode.compare(mode.size() - 2, 2, "_c") == 0) mode.resize(mode.size() - 2);
  const std::string kind =
      dims[7].values[static_cast<std::size_t>(r[7])].rfind("inter", 0) == 0 ? "inter" : "intra";
  for (const auto& t : scope) {
    if (t.routine != "*" && t.routine != routine) continue;
    if (t.comm != "*" && t.comm != "any" && t.comm != kind) continue;
    for (const auto& m : t.modes)
      if (m == "*" || m == mode) return true;
  }
  return false;
}

// Whether some row in the scope has the values a tuple names.
bool could_be_in_scope(const x::Tuple& t, const x::Scope& scope) {
  const auto& dims = x::dimensions();
  x::Row r(dims.size(), 0);
  for (std::size_t i = 0; i < t.dims.size(); ++i)
    r[static_cast<std::size_t>(t.dims[i])] = t.values[i];
  auto named = [&](int d) { return std::find(t.dims.begin(), t.dims.end(), d) != t.dims.end(); };
  for (int routine = 0; routine < static_cast<int>(dims[0].values.size()); ++routine)
    for (int form = 0; form < static_cast<int>(dims[1].values.size()); ++form)
      for (int comm = 0; comm < static_cast<int>(dims[7].values.size()); ++comm) {
        if ((named(0) && r[0] != routine) || (named(1) && r[1] != form) ||
            (named(7) && r[7] != comm))
          continue;
        x::Row probe = r;
        probe[0] = routine;
        probe[1] = form;
        probe[7] = comm;
        if (in_scope_here(probe, scope)) return true;
      }
  return false;
}

const std::vector<x::Scope>& some_scopes() {
  static const std::vector<x::Scope> s = {
      {{"allreduce", {"blocking"}, "intra"}},
      {{"reduce", {"nonblocking", "persistent"}, "inter"}},
      {{"scan", {"blocking"}, "intra"}, {"exscan", {"nonblocking"}, "intra"}},
      {{"reduce_scatter_block", {"*"}, "*"}},
      {{"*", {"persistent"}, "any"}},
  };
  return s;
}

}  // namespace

TEST(Crossing, a_scoped_array_holds_every_valid_pair_of_its_scope_and_no_row_out_of_it) {
  for (int p : {1, 4}) {
    const auto shapes = zoo_at(p);
    const auto valid = all_valid(shapes);
    const x::Coverage whole = x::covering_array(2, shapes, 3);
    for (const x::Scope& scope : some_scopes()) {
      SCOPED_TRACE("p = " + std::to_string(p) + ", scope " + x::describe(scope));
      std::vector<x::Row> in;
      for (const auto& r : valid)
        if (in_scope_here(r, scope)) in.push_back(r);
      const auto want = pairs_of(in);
      const x::Coverage cov = x::covering_array(2, shapes, 3, /*with_invalid=*/true, {}, scope);
      if (in.empty()) {  // an intercommunicator's scope at 1 process: nothing to cross
        EXPECT_TRUE(cov.rows.empty());
        EXPECT_EQ(cov.valid_tuples, 0);
        continue;
      }
      EXPECT_EQ(cov.valid_rows, static_cast<long long>(in.size()));
      EXPECT_EQ(cov.valid_tuples, static_cast<long long>(want.size()));
      EXPECT_EQ(cov.covered_tuples, cov.valid_tuples);
      EXPECT_DOUBLE_EQ(cov.percent(), 100.0);
      EXPECT_EQ(pairs_of(cov.rows), want);  // every in-scope valid pair, and no other
      std::string why;
      for (const auto& r : cov.rows) {
        EXPECT_TRUE(in_scope_here(r, scope)) << x::describe(scope);
        EXPECT_TRUE(x::in_scope(r, scope));
        EXPECT_TRUE(x::realize(r, shapes, 3, &why)) << why;
      }
      // Far fewer pairs than the whole space's, and fewer rows.
      EXPECT_LT(cov.valid_tuples, whole.valid_tuples);
      EXPECT_LE(cov.rows.size(), whole.rows.size());
      // An invalid pair is one some in-scope routine, form and communicator
      // could hold: never a routine the scope does not name.
      for (const auto& [t, reason] : cov.invalid) {
        EXPECT_FALSE(reason.empty()) << t.describe();
        EXPECT_NE(reason, "no valid call has these values") << t.describe();
        EXPECT_TRUE(could_be_in_scope(t, scope)) << t.describe();
      }
      // ... and every pair some in-scope row could hold is valid or listed.
      long long scoped_pairs = 0;
      const auto& dims = x::dimensions();
      for (int a = 0; a < static_cast<int>(dims.size()); ++a)
        for (int b = a + 1; b < static_cast<int>(dims.size()); ++b)
          for (int va = 0; va < static_cast<int>(dims[static_cast<std::size_t>(a)].values.size());
               ++va)
            for (int vb = 0; vb < static_cast<int>(dims[static_cast<std::size_t>(b)].values.size());
                 ++vb) {
              x::Tuple t;
              t.dims = {a, b};
              t.values = {va, vb};
              scoped_pairs += could_be_in_scope(t, scope) ? 1 : 0;
            }
      EXPECT_EQ(static_cast<long long>(cov.invalid.size()) + cov.valid_tuples, scoped_pairs);
    }
  }
}

TEST(Crossing, the_whole_space_array_is_the_array_of_a_scope_naming_everything) {
  for (int p : {1, 4}) {
    SCOPED_TRACE("p = " + std::to_string(p));
    const auto shapes = zoo_at(p);
    const x::Coverage a = x::covering_array(2, shapes, 5, true);
    const x::Coverage b = x::covering_array(2, shapes, 5, true, {}, {{"*", {"*"}, "*"}});
    EXPECT_EQ(a.rows, b.rows);
    EXPECT_EQ(a.valid_rows, b.valid_rows);
    EXPECT_EQ(a.valid_tuples, b.valid_tuples);
    EXPECT_EQ(a.invalid.size(), b.invalid.size());
    EXPECT_TRUE(a.scope.empty());
    EXPECT_EQ(x::describe(a.scope), "");
  }
}

TEST(Crossing, a_scoped_coverage_as_json_names_its_scope_and_only_its_values) {
  const x::Scope scope = {{"allreduce", {"nonblocking", "persistent"}, "inter"}};
  const x::Coverage cov = x::covering_array(2, zoo_at(4), 1, true, {}, scope);
  EXPECT_EQ(x::describe(scope), "allreduce:nonblocking+persistent:inter");
  const ordo::json::Value v = ordo::json::parse(x::to_json(cov, 4));
  EXPECT_EQ(v.get_string("scope"), "allreduce:nonblocking+persistent:inter");
  const auto& dims = v.get("dimensions")->items;
  ASSERT_EQ(dims.size(), x::dimensions().size());
  auto values = [&](std::size_t d) {
    std::vector<std::string> out;
    for (const auto& item : dims[d].get("values")->items) out.push_back(item.str);
    return out;
  };
  EXPECT_EQ(values(0), std::vector<std::string>{"allreduce"});
  EXPECT_EQ(values(1), (std::vector<std::string>{"nonblocking", "persistent", "nonblocking_c",
                                                 "persistent_c"}));
  for (const std::string& c : values(7)) EXPECT_EQ(c.rfind("inter", 0), 0u) << c;
  EXPECT_EQ(values(2).size(), x::dimensions()[2].values.size());  // the other dimensions whole
  // The whole space's coverage has no scope.
  const ordo::json::Value w = ordo::json::parse(x::to_json(x::covering_array(2, zoo_at(4), 1), 4));
  EXPECT_EQ(w.get("scope"), nullptr);
}

// The interleaved class: witness cells whose elements interleave (extent 16,
// true extent 48), valid as a receive datatype at every count, in place too.
TEST(Crossing, the_interleaved_class_is_witness_cells_valid_at_every_count_and_in_place) {
  std::string why;
  for (const char* count : {"1", "7", "65536"}) {
    const auto c = x::realize(row("allreduce", "blocking", "noncommutative", "interleaved", count,
                                  "first", "yes", "world"),
                              zoo_at(4), 1, &why);
    ASSERT_TRUE(c) << why;
    EXPECT_EQ(c->datatype, "resized(0,16,indexed([2,2],[0,10],MPI_INT))");
    const Datatype dt = Datatype::parse(c->datatype);
    EXPECT_LT(dt.extent(), dt.true_extent());
    EXPECT_FALSE(dt.overlaps_itself(c->count));
  }
  EXPECT_FALSE(x::realize(
      row("allreduce", "blocking", "predefined", "interleaved", "7", "first", "no", "world"),
      zoo_at(4), 1, &why));
  EXPECT_EQ(why, "a predefined op takes a predefined datatype, not a derived one (interleaved)");
}

namespace {
// Restores the default element size when a test that set another ends.
struct ElementBytes {
  explicit ElementBytes(std::size_t b) { x::set_element_bytes(b); }
  ~ElementBytes() { x::set_element_bytes(x::kDefaultElementBytes); }
};
}  // namespace

// The large-element class: one element of the set size (contiguous ints,
// whole cells); a buffer over the bound is no valid call, with the reason.
TEST(Crossing, the_large_element_class_takes_the_element_size_and_bounds_a_buffer) {
  std::string why;
  const auto r = [](const char* routine, const char* count) {
    return row(routine, "blocking", "noncommutative", "large-element", count, "first", "no",
               "world");
  };
  ASSERT_EQ(x::element_bytes(), x::kDefaultElementBytes);
  const auto c = x::realize(r("reduce", "1000"), zoo_at(5), 1, &why);
  ASSERT_TRUE(c) << why;
  EXPECT_EQ(Datatype::parse(c->datatype).extent(),
            static_cast<std::ptrdiff_t>(x::kDefaultElementBytes));
  EXPECT_EQ(Datatype::parse(c->datatype).size(), x::kDefaultElementBytes);
  EXPECT_FALSE(x::realize(r("reduce", "65536"), zoo_at(5), 1, &why));
  EXPECT_NE(why.find("over ordo's bound of 64 MiB a buffer"), std::string::npos) << why;
  EXPECT_FALSE(x::realize(
      row("reduce", "blocking", "predefined", "large-element", "7", "first", "no", "world"),
      zoo_at(5), 1, &why));
  {
    const ElementBytes set(272);  // a chunk of 256 bytes
    const auto k = x::realize(r("reduce", "65536"), zoo_at(5), 1, &why);
    ASSERT_TRUE(k) << why;
    EXPECT_EQ(k->datatype, "contiguous(68,MPI_INT)");
    // The scatter routines' send buffer holds a block for each of the 5 processes.
    EXPECT_FALSE(x::realize(r("reduce_scatter_block", "65536"), zoo_at(5), 1, &why));
    EXPECT_NE(why.find("a buffer of 327680 elements"), std::string::npos) << why;
    EXPECT_TRUE(x::realize(r("reduce_scatter_block", "65536"), zoo_at(1), 1, &why)) << why;
  }
  EXPECT_EQ(x::element_bytes(), x::kDefaultElementBytes);
  EXPECT_THROW(x::set_element_bytes(0), UsageError);
  EXPECT_THROW(x::set_element_bytes(100), UsageError);
  EXPECT_EQ(x::element_bytes(), x::kDefaultElementBytes);
}

// The two classes in the array: every valid pair held, among them each
// class with every count, op kind and routine some valid call has.
TEST(Crossing, the_interleaved_and_large_element_classes_are_in_the_array_with_every_pair) {
  const int il = index_of(3, "interleaved"), le = index_of(3, "large-element");
  ASSERT_LT(il, static_cast<int>(x::dimensions()[3].values.size()));
  ASSERT_LT(le, static_cast<int>(x::dimensions()[3].values.size()));
  for (int p : {1, 4}) {
    SCOPED_TRACE("p = " + std::to_string(p));
    const auto shapes = zoo_at(p);
    const x::Coverage cov = x::covering_array(2, shapes, 3, /*with_invalid=*/true);
    EXPECT_DOUBLE_EQ(cov.percent(), 100.0);
    const auto want = pairs_of(all_valid(shapes));
    EXPECT_EQ(pairs_of(cov.rows), want);
    for (int cls : {il, le}) {
      // With each count but the large element's 65536, each witness op kind, each routine.
      for (std::size_t k = 0; k < x::dimensions()[4].values.size(); ++k)
        EXPECT_EQ(want.count({3, cls, 4, static_cast<int>(k)}),
                  cls == le && x::dimensions()[4].values[k] == "65536" ? 0u : 1u)
            << cls << " count " << x::dimensions()[4].values[k];
      for (int op = 2; op < static_cast<int>(x::dimensions()[2].values.size()); ++op)
        EXPECT_EQ(want.count({2, op, 3, cls}), 1u) << op;
      for (int rt = 0; rt < static_cast<int>(x::dimensions()[0].values.size()); ++rt)
        EXPECT_EQ(want.count({0, rt, 3, cls}), 1u) << rt;
    }
    bool listed = false;
    for (const auto& [t, reason] : cov.invalid)
      if (t.dims == std::vector<int>{3, 4} && t.values[0] == le &&
          x::dimensions()[4].values[static_cast<std::size_t>(t.values[1])] == "65536") {
        listed = true;
        EXPECT_NE(reason.find("over ordo's bound"), std::string::npos) << reason;
      }
    EXPECT_TRUE(listed);
  }
}
