#include "reproducer.h"

#include <cstdio>
#include <fstream>
#include <functional>
#include <sstream>

#include "ordo/reference/buffer.h"
#include "ordo/reference/datatype.h"
#include "ordo/reference/oracle.h"
#include "ordo/reference/witness.h"

namespace ordo::props {
namespace {

using ref::Routine;

std::string c_string_comment(std::string s) {
  for (std::size_t i = 0; (i = s.find("*/", i)) != std::string::npos;) s.replace(i, 2, "* /");
  return s;
}

void emit_bytes(std::ostringstream& o, const std::string& name, const std::vector<std::byte>& b) {
  o << "static const unsigned char " << name << "[" << std::max<std::size_t>(1, b.size())
    << "] = {";
  if (b.empty()) o << "0";
  for (std::size_t i = 0; i < b.size(); ++i) {
    if (i % 24 == 0) o << "\n  ";
    o << static_cast<unsigned>(b[i]) << (i + 1 < b.size() ? "," : "");
  }
  o << "};\n";
}

// C statements that build the datatype; returns the variable (or basic name).
std::string emit_type(const ref::Datatype& d, std::ostringstream& o, int& n) {
  using K = ref::Datatype::Kind;
  if (d.kind() == K::basic) return std::string(ref::info(d.basic_type()).mpi_name);
  std::vector<std::string> kids;
  for (const auto& ch : d.children()) kids.push_back(emit_type(ch, o, n));
  const std::string t = "t" + std::to_string(n++);
  const auto& in = d.ints();
  const auto& ad = d.addrs();
  auto list = [](const auto& v, std::size_t from, std::size_t to) {
    std::ostringstream s;
    for (std::size_t i = from; i < to; ++i) s << (i > from ? "," : "") << v[i];
    return s.str();
  };
  o << "  MPI_Datatype " << t << ";\n  {\n";
  switch (d.kind()) {
    case K::contiguous:
      o << "    MPI_Type_contiguous(" << in[0] << ", " << kids[0] << ", &" << t << ");\n";
      break;
    case K::vector:
      o << "    MPI_Type_vector(" << in[0] << ", " << in[1] << ", " << in[2] << ", " << kids[0]
        << ", &" << t << ");\n";
      break;
    case K::hvector:
      o << "    MPI_Type_create_hvector(" << in[0] << ", " << in[1] << ", " << ad[0] << ", "
        << kids[0] << ", &" << t << ");\n";
      break;
    case K::indexed: {
      const std::size_t k = in.size() / 2;
      o << "    int bl[] = {" << list(in, 0, k) << "}, di[] = {" << list(in, k, in.size()) << "};\n"
        << "    MPI_Type_indexed(" << k << ", bl, di, " << kids[0] << ", &" << t << ");\n";
      break;
    }
    case K::hindexed:
      o << "    int bl[] = {" << list(in, 0, in.size()) << "};\n    MPI_Aint di[] = {"
        << list(ad, 0, ad.size()) << "};\n    MPI_Type_create_hindexed(" << in.size()
        << ", bl, di, " << kids[0] << ", &" << t << ");\n";
      break;
    case K::indexed_block:
      o << "    int di[] = {" << list(in, 1, in.size()) << "};\n    MPI_Type_create_indexed_block("
        << in.size() - 1 << ", " << in[0] << ", di, " << kids[0] << ", &" << t << ");\n";
      break;
    case K::struct_:
      o << "    int bl[] = {" << list(in, 0, in.size()) << "};\n    MPI_Aint di[] = {"
        << list(ad, 0, ad.size()) << "};\n    MPI_Datatype ty[] = {" << list(kids, 0, kids.size())
        << "};\n    MPI_Type_create_struct(" << in.size() << ", bl, di, ty, &" << t << ");\n";
      break;
    case K::resized:
      o << "    MPI_Type_create_resized(" << kids[0] << ", " << ad[0] << ", " << ad[1] << ", &" << t
        << ");\n";
      break;
    case K::dup:
      o << "    MPI_Type_dup(" << kids[0] << ", &" << t << ");\n";
      break;
    case K::value_index:
      // MPI-4.1 6.9.4: a predefined pair type, neither committed nor freed.
      o << "    MPI_Type_get_value_index(" << kids[0] << ", " << kids[1] << ", &" << t
        << "); /* MPI-4.1 */\n";
      break;
    default:
      break;
  }
  o << "  }\n";
  return t;
}

const char* kWitnessC = R"(
/* The witness ops: cells of four 32-bit integers at the leaf displacements
   of one element of the case's datatype (LEAF), element k at k * EXTENT. */
static void get_cell(const unsigned char *e, int c, int32_t v[4]) {
  for (int j = 0; j < 4; ++j) memcpy(&v[j], e + LEAF[4 * c + j], 4);
}
static void put_cell(unsigned char *e, int c, const int32_t v[4]) {
  for (int j = 0; j < 4; ++j) memcpy(e + LEAF[4 * c + j], &v[j], 4);
}
/* tracer: [a..b] o [c..d] = [a..d] when c == b + 1, else poisoned (-2). */
static inline void combine_tracer(const int32_t a[4], const int32_t b[4], int32_t r[4]) {
  if (a[0] == -2) { memcpy(r, a, 16); return; }
  if (b[0] == -2) { memcpy(r, b, 16); return; }
  if (a[0] >= 0 && b[0] >= 0 && b[0] == a[1] + 1) { r[0] = a[0]; r[1] = b[1]; r[2] = -1; r[3] = -1; return; }
  r[0] = -2; r[1] = -2;
  r[2] = (int32_t)((uint32_t)a[0] * 65536u + (uint32_t)a[1]);
  r[3] = (int32_t)((uint32_t)b[0] * 65536u + (uint32_t)b[1]);
}
/* matrix: 2x2 matrices of uint32, row-major, product mod 2^32. */
static inline void combine_matrix(const int32_t a[4], const int32_t b[4], int32_t r[4]) {
  uint32_t x[4], y[4], z[4];
  for (int j = 0; j < 4; ++j) { x[j] = (uint32_t)a[j]; y[j] = (uint32_t)b[j]; }
  z[0] = x[0] * y[0] + x[1] * y[2]; z[1] = x[0] * y[1] + x[1] * y[3];
  z[2] = x[2] * y[0] + x[3] * y[2]; z[3] = x[2] * y[1] + x[3] * y[3];
  for (int j = 0; j < 4; ++j) r[j] = (int32_t)z[j];
}
/* sum: wrapping int32 sum (registered as non-commutative). */
static inline void combine_sum(const int32_t a[4], const int32_t b[4], int32_t r[4]) {
  for (int j = 0; j < 4; ++j) r[j] = (int32_t)((uint32_t)a[j] + (uint32_t)b[j]);
}
static void (*COMBINE)(const int32_t *, const int32_t *, int32_t *);
static void user_fn(void *invec, void *inoutvec, int *len, MPI_Datatype *dt) {
  (void)dt;
  for (int k = 0; k < *len; ++k) {
    const unsigned char *a = (const unsigned char *)invec + (long)k * EXTENT;
    unsigned char *b = (unsigned char *)inoutvec + (long)k * EXTENT;
    for (int c = 0; c < NLEAF / 4; ++c) {
      int32_t x[4], y[4], r[4];
      get_cell(a, c, x); get_cell(b, c, y);
      COMBINE(x, y, r); /* inoutvec := invec o inoutvec */
      put_cell(b, c, r);
    }
  }
}
#if MPI_VERSION >= 4
/* The same function in the large-count convention (MPI_Op_create_c). */
static void user_fn_c(void *invec, void *inoutvec, MPI_Count *len, MPI_Datatype *dt) {
  (void)dt;
  for (MPI_Count k = 0; k < *len; ++k) {
    int one = 1;
    user_fn((unsigned char *)invec + (long)k * EXTENT, (unsigned char *)inoutvec + (long)k * EXTENT,
            &one, dt);
  }
}
#endif
)";

}  // namespace

std::string reproducer_source(const ref::Case& c, int p, std::string* why) {
  const bool supported_routine = c.routine == Routine::reduce || c.routine == Routine::allreduce ||
                                 c.routine == Routine::scan || c.routine == Routine::exscan ||
                                 c.routine == Routine::reduce_scatter_block ||
                                 c.routine == Routine::reduce_scatter;
  if (!supported_routine || !(c.comm == "world" || c.comm == "dup" || c.comm == "reversed") ||
      !c.root_datatype.empty() || !c.null_insignificant || c.alias_send_recv) {
    *why =
        "reproducers cover Reduce/Allreduce/Scan/Exscan/Reduce_scatter(_block) on world, dup and "
        "reversed only";
    return {};
  }
  if (c.concurrency == "outstanding") {
    *why = "no C reproducer of outstanding calls yet (the replay command runs the case)";
    return {};
  }
  const bool witness = ref::witness::is_witness(c.op);
  if (witness && !ref::witness::is_tracer(c.op) && c.op != "witness.matrix" &&
      c.op != "witness.sum-declared-noncommutative" && c.op != "witness.multiset") {
    *why = "no C version of " + c.op;
    return {};
  }
  const ref::Topology topo{false, p, 0};
  const ref::Datatype dt = ref::Datatype::parse(c.datatype);
  std::ostringstream o, data, table;
  o << "/* ordo reproducer (generated by the property tests).\n   case: "
    << c_string_comment(c.describe()) << "\n   json: " << c_string_comment(c.to_json())
    << "\n   build: mpicc -o repro repro.c; run: mpiexec -n " << p
    << " ./repro\n   Exit status 0: the library agrees with ordo's reference; 1: it does not. */\n"
    << "#include <mpi.h>\n#include <stdint.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include "
       "<string.h>\n\n"
    << "#define NRANKS " << p << "\n";
  if (witness) {
    o << "static const long LEAF[] = {";
    const auto& tm = dt.typemap();
    for (std::size_t i = 0; i < tm.size(); ++i) o << (i ? "," : "") << tm[i].disp;
    o << "};\n#define NLEAF " << tm.size() << "\n#define EXTENT " << dt.extent() << "L\n"
      << kWitnessC;
  }
  table << "static const struct rank_data RANKS[NRANKS] = {\n";
  for (int r = 0; r < p; ++r) {
    const ref::RankPlan pl = ref::plan(c, topo, ref::Role{0, r});
    const std::string R = "r" + std::to_string(r);
    int send_mode = 0;  // 0 NULL, 1 buffer, 2 MPI_IN_PLACE
    long send_origin = 0, recv_origin = 0, exp_origin = 0;
    if (pl.send) {
      send_mode = 1;
      emit_bytes(data, R + "_send", pl.send->storage());
      send_origin = pl.send->origin();
    } else if (c.in_place && !pl.send_significant) {
      send_mode = 2;
    }
    const bool recv = pl.recv_significant && pl.recv_initial.has_value();
    if (recv) {
      emit_bytes(data, R + "_recv", pl.recv_initial->storage());
      recv_origin = pl.recv_initial->origin();
    }
    const bool check = recv && pl.result_defined && pl.recv_expected.has_value();
    std::vector<ref::ByteRange> ranges;
    if (check) {
      emit_bytes(data, R + "_expect", pl.recv_expected->storage());
      exp_origin = pl.recv_expected->origin();
      ranges = pl.recv_expected->type().data_ranges(pl.recv_compare_elements);
    }
    data << "static const long " << R << "_ranges[] = {";
    if (ranges.empty()) data << "0";
    for (std::size_t i = 0; i < ranges.size(); ++i)
      data << (i ? "," : "") << ranges[i].begin << "," << ranges[i].end;
    data << "};\n";
    table << "  {" << send_mode << ", " << (send_mode == 1 ? R + "_send" : "NULL") << ", "
          << (send_mode == 1 ? pl.send->storage().size() : 0) << ", " << send_origin << ", "
          << (recv ? 1 : 0) << ", " << (recv ? R + "_recv" : "NULL") << ", "
          << (recv ? pl.recv_initial->storage().size() : 0) << ", " << recv_origin << ", "
          << (check ? 1 : 0) << ", " << (check ? R + "_expect" : "NULL") << ", " << exp_origin
          << ", " << R << "_ranges, " << ranges.size() << "},\n";
  }
  table << "};\n";
  o << "\nstruct rank_data {\n  int send_mode; const unsigned char *send; long send_len, "
       "send_origin;\n"
       "  int has_recv; const unsigned char *recv; long recv_len, recv_origin;\n"
       "  int check; const unsigned char *expect; long expect_origin; const long *ranges; int "
       "nranges;\n};\n\n"
    << data.str() << table.str();
  if (c.routine == Routine::reduce_scatter) {
    const auto rc = ref::effective_recvcounts(c, topo);
    o << "static " << (c.large_count ? "MPI_Count" : "int") << " RECVCOUNTS[] = {";
    for (std::size_t i = 0; i < rc.size(); ++i) o << (i ? "," : "") << rc[i];
    o << "};\n";
  }
  o << "\nstatic unsigned char *copy_of(const unsigned char *b, long n) {\n"
       "  unsigned char *m = malloc(n > 0 ? (size_t)n : 1);\n  if (n > 0) memcpy(m, b, "
       "(size_t)n);\n  return m;\n}\n\n"
       "int main(int argc, char **argv) {\n  MPI_Init(&argc, &argv);\n  int wrank, wsize;\n"
       "  MPI_Comm_rank(MPI_COMM_WORLD, &wrank);\n  MPI_Comm_size(MPI_COMM_WORLD, &wsize);\n"
       "  if (wsize != NRANKS) {\n    if (wrank == 0) fprintf(stderr, \"run this reproducer with "
       "%d processes\\n\", NRANKS);\n"
       "    MPI_Finalize();\n    return 2;\n  }\n  MPI_Comm comm = MPI_COMM_WORLD;\n";
  if (c.comm == "dup") o << "  MPI_Comm_dup(MPI_COMM_WORLD, &comm);\n";
  if (c.comm == "reversed") o << "  MPI_Comm_split(MPI_COMM_WORLD, 0, wsize - 1 - wrank, &comm);\n";
  o << "  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);\n  int rank;\n  MPI_Comm_rank(comm, "
       "&rank);\n"
       "  const struct rank_data *R = &RANKS[rank];\n";
  int n = 0;
  const std::string t = emit_type(dt, o, n);
  o << "  MPI_Datatype dt = " << t << ";\n";
  if (!dt.predefined()) o << "  MPI_Type_commit(&dt);\n";
  if (witness) {
    o << "  COMBINE = "
      << (ref::witness::is_tracer(c.op) ? "combine_tracer"
          : c.op == "witness.matrix"    ? "combine_matrix"
                                        : "combine_sum")
      << ";\n  MPI_Op op;\n  "
      << (c.op == "witness.tracer-c" ? "MPI_Op_create_c(user_fn_c, " : "MPI_Op_create(user_fn, ")
      << (ref::witness::make(c.op).commutative() ? 1 : 0) << ", &op);\n";
  } else {
    o << "  MPI_Op op = " << c.op << ";\n";
  }
  o << "  unsigned char *sstore = R->send_mode == 1 ? copy_of(R->send, R->send_len) : NULL;\n"
       "  unsigned char *rstore = R->has_recv ? copy_of(R->recv, R->recv_len) : NULL;\n"
       "  const void *sb = R->send_mode == 1 ? (const void *)(sstore + R->send_origin) : "
       "(R->send_mode == 2 ? MPI_IN_PLACE : NULL);\n"
       "  void *rb = rstore ? (void *)(rstore + R->recv_origin) : NULL;\n  int rc;\n";
  const std::string cnt = std::to_string(c.count), root = std::to_string(c.root);
  std::string args, name;
  switch (c.routine) {
    case Routine::reduce:
      name = "Reduce";
      args = "sb, rb, " + cnt + ", dt, op, " + root + ", comm";
      break;
    case Routine::allreduce:
      name = "Allreduce";
      args = "sb, rb, " + cnt + ", dt, op, comm";
      break;
    case Routine::scan:
      name = "Scan";
      args = "sb, rb, " + cnt + ", dt, op, comm";
      break;
    case Routine::exscan:
      name = "Exscan";
      args = "sb, rb, " + cnt + ", dt, op, comm";
      break;
    case Routine::reduce_scatter_block:
      name = "Reduce_scatter_block";
      args = "sb, rb, " + cnt + ", dt, op, comm";
      break;
    default:
      name = "Reduce_scatter";
      args = "sb, rb, RECVCOUNTS, dt, op, comm";
      break;
  }
  // The large-count binding of the same call (MPI-4.1 Section 2.5.8: the
  // name with "_c", MPI_Count counts; RECVCOUNTS is declared MPI_Count above).
  const std::string c_suffix = c.large_count ? "_c" : "";
  // Completion: MPI_Wait, or (concurrency "test") a loop of MPI_Test.
  const std::string complete =
      c.concurrency == "test"
          ? "  if (rc == MPI_SUCCESS) {\n    int flag = 0;\n    while (rc == MPI_SUCCESS && !flag) "
            "rc = MPI_Test(&req, &flag, MPI_STATUS_IGNORE);\n  }\n"
          : "  if (rc == MPI_SUCCESS) rc = MPI_Wait(&req, MPI_STATUS_IGNORE);\n";
  if (c.mode == ref::Mode::blocking) {
    o << "  rc = MPI_" << name << c_suffix << "(" << args << ");\n";
  } else if (c.mode == ref::Mode::nonblocking) {
    o << "  MPI_Request req;\n  rc = MPI_I"
      << (name == "Reduce_scatter_block" || name == "Reduce_scatter"
              ? "r" + name.substr(1)
              : std::string(1, static_cast<char>(name[0] + 32)) + name.substr(1))
      << c_suffix << "(" << args << ", &req);\n";
    if (c.concurrency == "freed") {
      o << "  /* the op and the datatype freed while the request is pending (allowed) */\n";
      if (witness) o << "  if (rc == MPI_SUCCESS) MPI_Op_free(&op);\n";
      if (!dt.predefined()) o << "  if (rc == MPI_SUCCESS) MPI_Type_free(&dt);\n";
    }
    o << complete;
  } else {
    o << "  MPI_Request req;\n  rc = MPI_" << name << "_init" << c_suffix << "(" << args
      << ", MPI_INFO_NULL, &req);\n  if (rc == MPI_SUCCESS) rc = MPI_Start(&req);\n"
      << complete << "  if (rc == MPI_SUCCESS) MPI_Request_free(&req);\n";
  }
  o << R"(  int failed = 0;
  if (rc != MPI_SUCCESS) {
    char msg[MPI_MAX_ERROR_STRING]; int len = 0;
    MPI_Error_string(rc, msg, &len);
    printf("rank %d: MPI_)"
    << name << c_suffix << R"( returned %s\n", rank, msg);
    failed = 1;
  } else if (R->check) {
    const unsigned char *exp = R->expect + R->expect_origin, *obs = (const unsigned char *)rb;
    for (int i = 0; i < R->nranges && !failed; ++i)
      for (long b = R->ranges[2 * i]; b < R->ranges[2 * i + 1]; ++b)
        if (exp[b] != obs[b]) {
          long from = b - b % 4 - 8 < R->ranges[0] ? R->ranges[0] : b - b % 4 - 8;
          printf("rank %d: result differs at byte %ld of the receive buffer\n  expected:", rank, b);
          for (long k = from; k < from + 32 && k < R->ranges[2 * R->nranges - 1]; ++k) printf(" %02x", exp[k]);
          printf("\n  observed:");
          for (long k = from; k < from + 32 && k < R->ranges[2 * R->nranges - 1]; ++k) printf(" %02x", obs[k]);
          printf("\n  (bytes from offset %ld)\n", from);
)";
  if (witness)
    o << R"(          {
            int32_t e[4], g[4];
            get_cell(exp, 0, e); get_cell(obs, 0, g);
            printf("  element 0, cell 0: expected {%d, %d, %d, %d}, observed {%d, %d, %d, %d}\n",
                   e[0], e[1], e[2], e[3], g[0], g[1], g[2], g[3]);
          }
)";
  o << R"(          failed = 1;
          break;
        }
  }
  if (!failed) printf("rank %d: ok\n", rank);
  fflush(stdout);
  free(sstore);
  free(rstore);
  MPI_Finalize();
  return failed;
}
)";
  return o.str();
}

std::string write_reproducer(const ref::Case& c, int world_size, const std::string& dir,
                             std::string* why) {
  const std::string src = reproducer_source(c, world_size, why);
  if (src.empty()) return {};
  char name[64];
  std::snprintf(name, sizeof name, "ordo-repro-%016zx-%dranks.c",
                std::hash<std::string>{}(c.to_json()), world_size);
  const std::string path = (dir.empty() ? std::string(".") : dir) + "/" + name;
  if (std::system(("mkdir -p '" + (dir.empty() ? std::string(".") : dir) + "'").c_str()) != 0) {
  }
  std::ofstream f(path);
  f << src;
  if (!f) {
    *why = "cannot write " + path;
    return {};
  }
  return path;
}

}  // namespace ordo::props
