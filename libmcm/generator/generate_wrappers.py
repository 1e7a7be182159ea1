#!/usr/bin/env python3
"""Generate libmcm's communicator-substituting MPI wrappers from the installed mpi.h.

One table drives everything: every function declared in mpi.h that takes an MPI_Comm
by value, minus the hand-written ones listed in special.txt, gets
  * a C wrapper        NAME(args)  -> PMPI_NAME(args with MPI_COMM_WORLD substituted)
  * Fortran entry points mpi_name_, mpi_name__, mpi_name, MPI_NAME -> pmpi_name_(...)
    (only for functions Open MPI's libmpi_mpifh exports as pmpi_name_), because Open
    MPI's Fortran bindings call PMPI_* directly and would bypass the C wrappers;
  * a row in the table of intercepted functions (name, family, origin, fortran yes/no),
    where the hand-written and deliberately unwrapped functions of special.txt appear too.

The point-to-point engine's functions (special.txt KIND engine, with or without an
MPI_Comm) and the covered blocking collectives (KIND collective) have hand-written C
wrappers; for them the generator writes Fortran -> C *bridges* instead
(fortran_bridges.c): the four manglings convert their Fortran arguments to C
(CONVERSIONS below, driven by the C prototype), call the shim's own C function
(MPI_Send, MPI_Wait, MPI_Allreduce, ...), so that Fortran calls take the same way as C
ones, and convert the outputs back, as Open MPI's mpif-h bindings do. libmcm.so must
define every function whose C is hand-written: --check-defined, run after the link,
fails the build otherwise (a bridge to a missing one would call Open MPI's own).

The Fortran calling convention is derived from the C prototype, as Open MPI's own
bindings do: every argument by reference, then MPI_Fint *ierr, then one hidden
length per character argument (gfortran passes size_t).

Usage: generate_wrappers.py --cc CC [-I DIR ...] [--mpifh-library LIB [--nm NM]] --special FILE --out DIR
       generate_wrappers.py --check-defined LIBMCM [--nm NM] --special FILE
       generate_wrappers.py --conversions     (prints the bridges' conversion table)
"""
import argparse
import os
import re
import subprocess
import sys

DECL = re.compile(r"(?P<ret>[A-Za-z_][\w ]*?\**)\s*\b(?P<name>MPI_[A-Z][A-Za-z0-9_]*)\s*\((?P<params>[^;]*)\)\s*(__attribute__.*)?$")
COMM_PARAM = re.compile(r"^\s*MPI_Comm\s+(\w+)\s*$")

FAMILIES = [
    ("p2p", r"^MPI_(I?[bsr]?send|I?m?recv|Sendrecv|I?m?probe|[bsr]?send_init|Recv_init)"),
    ("completion", r"^MPI_(Wait|Test(all|any|some)?$|Request_(free|get_status)|Cancel|Start|Buffer_)"),
    ("collective", r"^MPI_(I?(Allgather|Allreduce|Alltoall|Barrier|Bcast|Exscan|Gather|Reduce|Scan|Scatter)|I?Neighbor|Reduce_scatter)"),
    ("rma", r"^MPI_Win_"),
    ("io", r"^MPI_File_"),
    ("topology", r"^MPI_(Cart|Graph|Dist_graph|Topo_test|Cartdim|Graphdims)"),
    ("attribute", r"^MPI_(Attr_|Comm_(set|get|delete)_attr)"),
    ("errhandler", r"^MPI_Comm_(set|get|call)_errhandler|^MPI_Errhandler"),
    ("communicator", r"^MPI_(Comm_|Intercomm_)"),
]


def family(name):
    for fam, pattern in FAMILIES:
        if re.search(pattern, name, re.IGNORECASE):
            return fam
    return "other"


def preprocess(cc, includes):
    src = '#include <mpi.h>\n'
    cmd = [cc, "-E", "-P", "-x", "c", "-"] + ["-I" + d for d in includes]
    out = subprocess.run(cmd, input=src, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit("generate_wrappers: preprocessing mpi.h failed:\n" + out.stderr)
    return out.stdout


def split_params(text):
    """Split a parameter list on top-level commas."""
    parts, depth, cur = [], 0, ""
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur.strip())
    return [] if parts == ["void"] else parts


def param_name(param):
    m = re.search(r"(\w+)\s*(\[\s*\d*\s*\])*\s*$", param)
    if not m or m.group(1) in ("int", "char", "void", "MPI_Comm", "MPI_Aint"):
        raise ValueError("parameter without a name: %r" % param)
    return m.group(1)


def declarations(text):
    """Yield (ret, name, [params]) for every MPI_ function declaration."""
    flat = re.sub(r"\s+", " ", text)
    for stmt in flat.split(";"):
        stmt = re.sub(r"__attribute__\s*\(\((?:[^()]|\([^()]*\))*\)\)", "", stmt).strip()
        m = DECL.search(stmt)
        if not m or stmt.startswith("typedef"):
            continue
        yield m.group("ret").strip(), m.group("name"), split_params(m.group("params"))


KINDS = ("hand-written", "not-wrapped", "constructor", "engine", "collective")
# Kinds whose C is hand-written and whose Fortran entry points are bridges to it.
BRIDGED = ("engine", "collective")
# Kinds whose C is hand-written: libmcm.so must define them (--check-defined).
HAND_WRITTEN_C = ("hand-written",) + BRIDGED


def load_special(path):
    names = {}
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if line:
                fields = line.split(None, 2)
                if len(fields) < 2 or fields[1] not in KINDS:
                    sys.exit("%s: bad line %r (expected: NAME %s reason)"
                             % (path, line, "|".join(KINDS)))
                names[fields[0]] = fields[1]
    return names


def defined_symbols(library, nm):
    """The dynamic symbols `library` exports, name -> address (None: no library)."""
    if not library:
        return None
    out = subprocess.run([nm, "-D", "--defined-only", library], capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit("generate_wrappers: cannot list symbols of %s:\n%s" % (library, out.stderr))
    return {f[-1]: f[0] for f in (line.split() for line in out.stdout.splitlines()) if len(f) == 3}


# The `use mpi_f08` bindings (libmpi_usempif08) do not call mpi_x_ but Open MPI's
# internal ompi_x_f, of which mpi_x_ and its manglings are aliases (same address, same
# Fortran calling convention); an entry point is also defined under that name when
# libmpi_mpifh shows it so. Set by main().
OMPI_F_ALIASES = set()
# Functions with LOGICAL arguments the mpi_f08 bindings call as pmpi_x_ (MPI_Iprobe,
# MPI_Test, MPI_Cart_create, ...): their entry point is also defined under that name, so
# an entry point reaches Open MPI's own pmpi_x_ through dlsym(RTLD_NEXT), never by name.
F08_PMPI = set()


def load_f08_imports(library, nm):
    """The pmpi_x_ symbols Open MPI's mpi_f08 bindings import (empty: no such library)."""
    if not library or not os.path.exists(library):
        return set()
    out = subprocess.run([nm, "-D", "--undefined-only", library], capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit("generate_wrappers: cannot list symbols of %s:\n%s" % (library, out.stderr))
    return {f[-1] for f in (line.split() for line in out.stdout.splitlines())
            if f and re.match(r"^pmpi_\w+_$", f[-1])}


def fortran_aliases(lower):
    """The names of one Fortran entry point (lower: "mpi_send"): the four manglings a
    Fortran compiler may use, plus Open MPI's ompi_send_f where it is one of them, plus
    pmpi_send_ where the mpi_f08 bindings call that."""
    names = [lower, lower + "_", lower + "__", lower.upper()]
    ompi = "ompi_%s_f" % lower[4:]
    if ompi in OMPI_F_ALIASES:
        names.append(ompi)
    if "p%s_" % lower in F08_PMPI:
        names.append("p%s_" % lower)
    return names


HEADER = """// GENERATED by libmcm/generator/generate_wrappers.py from the installed mpi.h.
// Do not edit: change the generator or libmcm/generator/special.txt instead.
"""


NEW_COMM_PARAM = re.compile(r"^\s*MPI_Comm\s*\*\s*(\w+)\s*$")


def new_comm_index(name, params):
    """The index of a constructor's output communicator."""
    found = [i for i, p in enumerate(params) if NEW_COMM_PARAM.match(p)]
    if len(found) != 1:
        sys.exit("generate_wrappers: constructor %s has %d MPI_Comm* parameters" % (name, len(found)))
    return found[0]


def nonblocking_twin(name, params, decls):
    """The nonblocking counterpart of a blocking call (MPI_Barrier -> MPI_Ibarrier): the
    same parameters plus a trailing MPI_Request*. None when there is none."""
    twin = "MPI_I" + name[4].lower() + name[5:]
    if twin not in decls:
        return None
    tparams = decls[twin]
    same = len(tparams) == len(params) + 1 and re.match(r"^\s*MPI_Request\s*\*", tparams[-1])
    return twin if same else None


def c_wrapper(ret, name, params, constructor, twin=None):
    names = [param_name(p) for p in params]
    args = ", ".join("mcm_substitute(%s)" % n if COMM_PARAM.match(p) else n
                     for p, n in zip(params, names))
    if twin:
        # While the engine runs, a rank blocked in MPI must keep matching its peers'
        # messages (MPI's progress rule): either the collective itself with the engine
        # driven from MPI's progress loop (mode adaptive), or the nonblocking twin and an
        # engine-driving wait.
        return ("%s %s(%s) {\n  if (mcm_engine_active()) {\n"
                "    if (mcm_native_collective_begin()) {\n"
                "      const int rc = P%s(%s);\n"
                "      mcm_native_collective_end();\n"
                "      return rc;\n    }\n"
                "    MPI_Request request;\n"
                "    const int rc = P%s(%s, &request);\n"
                "    return rc == MPI_SUCCESS ? mcm_wait_progressing(&request, MPI_STATUS_IGNORE) : rc;\n"
                "  }\n  return P%s(%s);\n}\n"
                % (ret, name, ", ".join(params), name, args, twin, args, name, args))
    if not constructor:
        return "%s %s(%s) {\n  return P%s(%s);\n}\n" % (ret, name, ", ".join(params), name, args)
    out = names[new_comm_index(name, params)]
    return ("%s %s(%s) {\n  const int rc = P%s(%s);\n"
            "  if (rc == MPI_SUCCESS) mcm_comm_created(*%s);\n  return rc;\n}\n"
            % (ret, name, ", ".join(params), name, args, out))


def fortran_wrapper(name, params, constructor, twin=None):
    lower = name.lower()
    strings = [i for i, p in enumerate(params) if re.search(r"\bchar\b", p)]
    formals = ["void* a%d" % i for i in range(len(params))] + ["MPI_Fint* ierr"]
    formals += ["size_t len%d" % i for i in strings]
    lines = []
    actuals = []
    for i, p in enumerate(params):
        if COMM_PARAM.match(p):
            lines.append("  MPI_Fint c%d = mcm_substitute_f(*(MPI_Fint*)a%d);" % (i, i))
            actuals.append("&c%d" % i)
        else:
            actuals.append("a%d" % i)
    actuals += ["ierr"] + ["len%d" % i for i in strings]
    proto = ", ".join(formals)
    # Open MPI's own binding, found once (libmcm may define pmpi_x_ itself: F08_PMPI).
    out = "static void mcm_f_%s(%s) {\n" % (lower[4:], proto)
    out += "  static void (*next)(%s) = NULL;\n" % proto
    out += "\n".join(lines) + ("\n" if lines else "")
    if twin:
        tlower = twin.lower()
        # Declared exactly as the twin's own entry point declares it (all void*).
        tproto = ", ".join(["void* a%d" % i for i in range(len(params) + 1)] + ["MPI_Fint* ierr"])
        out += "  static void (*twin)(%s) = NULL;\n" % tproto
        out += "  if (!twin) twin = (void (*)(%s))mcm_fortran_lookup(\"p%s_\");\n" % (tproto, tlower)
        out += "  if (!next) next = (void (*)(%s))mcm_fortran_lookup(\"p%s_\");\n" % (proto, lower)
        out += "  if (mcm_engine_active() && next && mcm_native_collective_begin()) {  /* see the C wrapper */\n"
        out += "    next(%s);\n" % ", ".join(actuals)
        out += "    mcm_native_collective_end();\n"
        out += "    return;\n  }\n"
        out += "  if (mcm_engine_active() && twin) {  /* see the C wrapper */\n"
        out += "    MPI_Fint frequest;\n"
        out += "    twin(%s, &frequest, ierr);\n" % ", ".join(actuals[:len(params)])
        out += "    if (*ierr != MPI_SUCCESS) return;\n"
        out += "    MPI_Request request = PMPI_Request_f2c(frequest);\n"
        out += "    *ierr = mcm_wait_progressing(&request, MPI_STATUS_IGNORE);\n"
        out += "    return;\n  }\n"
    out += "  if (!next) next = (void (*)(%s))mcm_fortran_lookup(\"p%s_\");\n" % (proto, lower)
    out += "  if (!next) mcm_fortran_missing(\"%s\");\n" % name
    out += "  next(%s);\n" % ", ".join(actuals)
    if constructor:
        out += ("  if (*ierr == MPI_SUCCESS) mcm_comm_created(PMPI_Comm_f2c(*(MPI_Fint*)a%d));\n"
                % new_comm_index(name, params))
    out += "}\n"
    for alias in fortran_aliases(lower):
        out += "void %s(%s) __attribute__((alias(\"mcm_f_%s\")));\n" % (alias, proto, lower[4:])
    return out


# ---- Fortran -> C bridges (KIND engine and collective) -----------------------------------
#
# One row per (C type, parameter name) the bridges know; name None matches any name, a
# tuple any of its names, and a row with a name wins over one without. C types are written
# without const, with * for a pointer and [] for an array. A parameter no row matches
# stops the generator: a new bridged function needs its conversions decided here. mpi.h
# declares some arrays as pointers (MPI_Waitall's MPI_Status *array_of_statuses): the
# array_of_* names decide, and so do the collectives' count and displacement names.
#
# Direction of the handle pointers: MPI_Request* is an output of the calls that create a
# request (MPI_I*, MPI_*_init) and in/out otherwise (MPI_Wait, MPI_Test, MPI_Cancel,
# MPI_Start, MPI_Request_free); MPI_Message* is an output of the probes and in/out of the
# matched receives (MPI_Mrecv, MPI_Imrecv).
#
# When outputs are written (as Open MPI's mpif-h): "ok" = the call returned MPI_SUCCESS or
# MPI_ERR_IN_STATUS; "done" = ok and, for a call with a flag, the flag is true. Request
# and message handles the call changed are written back whatever it returned.
#
# The collectives' INTEGER arrays (counts and displacements, one per rank) are inputs.
INPUT_ARRAYS = ("sendcounts", "recvcounts", "displs", "sdispls", "rdispls")
CONVERSIONS = [
    # C type          name                conversion       Fortran -> C / C -> Fortran
    ("int",           None,               "int_in",        "INTEGER value: *(MPI_Fint*)"),
    ("MPI_Comm",      None,               "comm_in",       "PMPI_Comm_f2c (the C function substitutes MPI_COMM_WORLD)"),
    ("MPI_Datatype",  None,               "type_in",       "PMPI_Type_f2c"),
    ("MPI_Op",        None,               "op_in",         "PMPI_Op_f2c"),
    ("void*",         None,               "choice",        "the address; Open MPI's Fortran MPI_BOTTOM -> MPI_BOTTOM (OMPI_F2C_BOTTOM)"),
    ("int[]",         INPUT_ARRAYS,       "ints_in",       "INTEGER array in, passed as is: MPI_Fint is int (asserted in fortran_bridges.c)"),
    ("int*",          INPUT_ARRAYS,       "ints_in",       "(the same, declared as a pointer)"),
    ("int*",          "flag",             "logical_out",   "LOGICAL out: C int -> MCM_FORTRAN_TRUE/FALSE (OMPI_FORTRAN_VALUE_TRUE), when ok"),
    ("int*",          "index",            "index_out",     "INTEGER out: index + 1 (Fortran counts from 1), MPI_UNDEFINED stays, when ok"),
    ("int*",          None,               "int_out",       "INTEGER out (outcount, size), when ok"),
    ("int[]",         "array_of_indices", "indices_out",   "temporary of count; the first outcount entries + 1 back, when ok"),
    ("int*",          "array_of_indices", "indices_out",   "(the same, declared as a pointer)"),
    ("MPI_Request",   None,               "request_in",    "PMPI_Request_f2c"),
    ("MPI_Request*",  None,               "request",       "creating calls: output, PMPI_Request_c2f after MPI_SUCCESS; others in/out: f2c before, c2f after if changed"),
    ("MPI_Request[]", None,               "requests",      "temporary of count/incount, f2c each before, c2f back each one changed"),
    ("MPI_Request*",  "array_of_requests", "requests",     "(the same, declared as a pointer)"),
    ("MPI_Status*",   None,               "status_out",    "MPI_F_STATUS_IGNORE -> MPI_STATUS_IGNORE, else a local status, PMPI_Status_c2f when done"),
    ("MPI_Status[]",  None,               "statuses_out",  "MPI_F_STATUSES_IGNORE -> MPI_STATUSES_IGNORE, else temporary of count; PMPI_Status_c2f of outcount (or count) entries when done"),
    ("MPI_Status*",   "array_of_statuses", "statuses_out", "(the same, declared as a pointer: MPI_Waitall)"),
    ("MPI_Message*",  None,               "message",       "probes: output, mcm_message_c2f when done; receives: in/out, mcm_message_f2c before, mcm_message_back after"),
]
# Where one function's parameter means something else than the same C type elsewhere;
# the function is a regular expression over the whole name.
FUNCTION_CONVERSIONS = {
    ("MPI_Buffer_attach", "buffer"): ("address", "the address as is"),
    # MPI-3.1 3.6: mpif.h and `use mpi` ignore MPI_BUFFER_DETACH's buffer argument (the C
    # function returns the address through it): the address goes to a dummy.
    ("MPI_Buffer_detach", "buffer"): ("detach_buffer", "ignored: the C address goes to a dummy (MPI-3.1 3.6, as Open MPI)"),
    # The choice buffers that may be MPI_IN_PLACE (MPI-3.1 chapter 5), those where Open
    # MPI's mpif-h bindings convert it (OMPI_F2C_IN_PLACE): nowhere else, so that a
    # misplaced MPI_IN_PLACE keeps the meaning it has under Open MPI's own bindings.
    (r"MPI_(Allgatherv?|Allreduce|Alltoallv?|Gatherv?|Reduce|Reduce_scatter(_block)?)", "sendbuf"):
        ("in_place", "as choice, and Open MPI's Fortran MPI_IN_PLACE -> MPI_IN_PLACE (OMPI_F2C_IN_PLACE)"),
    (r"MPI_Scatterv?", "recvbuf"): ("in_place", "(the same: the root's receive buffer)"),
}
COUNT_NAMES = ("count", "incount")
CREATES_REQUEST = re.compile(r"^MPI_I[a-z]|_init$")


def c_type_of(param):
    """(C type as in CONVERSIONS, name) of one parameter of a prototype."""
    name = param_name(param)
    m = re.match(r"^(.*?)\b%s\s*(\[\s*\d*\s*\])?\s*$" % re.escape(name), param)
    if not m:
        raise ValueError("cannot parse parameter %r" % param)
    base = re.sub(r"\bconst\b", "", m.group(1))
    ctype = re.sub(r"\s+", " ", base.replace("*", "")).strip()
    return ctype + "*" * base.count("*") + ("[]" if m.group(2) else ""), name


def conversion_of(function, ctype, name):
    for (pattern, n), (conv, _) in FUNCTION_CONVERSIONS.items():
        if n == name and re.fullmatch(pattern, function):
            return conv
    for t, n, conv, _ in CONVERSIONS:
        if t == ctype and (n == name or (isinstance(n, tuple) and name in n)):
            return conv
    for t, n, conv, _ in CONVERSIONS:
        if t == ctype and n is None:
            return conv
    sys.exit("generate_wrappers: no Fortran conversion for parameter '%s %s' of %s: "
             "add a row to CONVERSIONS" % (ctype, name, function))


def fortran_bridge(ret, function, params):
    """The Fortran -> C bridge of one bridged function (KIND engine or collective) and its
    four manglings."""
    if ret != "int":
        sys.exit("generate_wrappers: bridged function %s does not return int" % function)
    typed = [c_type_of(p) for p in params]
    names = [n for _, n in typed]
    convs = [conversion_of(function, t, n) for t, n in typed]
    count = next((n for (t, n) in typed if t == "int" and n in COUNT_NAMES), None)
    has_flag = "logical_out" in convs
    outcount = "outcount" if ("int*", "outcount") in typed else None
    done = "ok && c_flag" if has_flag else "ok"
    formals, pre, actuals, post, cleanup = [], [], [], [], []
    need_n = False

    def require(value, what):
        if value is None:
            sys.exit("generate_wrappers: %s: %s" % (function, what))

    for (ctype, x), conv in zip(typed, convs):
        f, c = "f_" + x, "c_" + x
        formals.append(("void* " if conv in ("address", "choice", "in_place", "detach_buffer")
                        else "MPI_Fint* ") + f)
        if conv == "int_in":
            pre.append("const int %s = (int)*%s;" % (c, f))
            actuals.append(c)
        elif conv == "comm_in":
            actuals.append("PMPI_Comm_f2c(*%s)" % f)
        elif conv == "type_in":
            actuals.append("PMPI_Type_f2c(*%s)" % f)
        elif conv == "op_in":
            actuals.append("PMPI_Op_f2c(*%s)" % f)
        elif conv == "ints_in":
            actuals.append("(const int*)%s" % f)
        elif conv == "address":
            actuals.append(f)
        elif conv == "choice":
            actuals.append("mcm_f2c_bottom(%s)" % f)
        elif conv == "in_place":
            actuals.append("mcm_f2c_in_place(%s)" % f)
        elif conv == "detach_buffer":
            pre.append("void* %s = NULL;" % c)
            pre.append("(void)%s;" % f)
            actuals.append("&" + c)
        elif conv == "logical_out":
            pre.append("int %s = 0;" % c)
            actuals.append("&" + c)
            post.append("if (ok) *%s = %s ? MCM_FORTRAN_TRUE : MCM_FORTRAN_FALSE;" % (f, c))
        elif conv == "index_out":
            pre.append("int %s = MPI_UNDEFINED;" % c)
            actuals.append("&" + c)
            post.append("if (ok) *%s = %s == MPI_UNDEFINED ? MPI_UNDEFINED : %s + 1;" % (f, c, c))
        elif conv == "int_out":
            pre.append("int %s = 0;" % c)
            actuals.append("&" + c)
            post.append("if (ok) *%s = %s;" % (f, c))
        elif conv == "indices_out":
            require(count, "array %s without a count/incount parameter" % x)
            require(outcount, "indices without an outcount parameter")
            need_n = True
            pre.append("int s_%s[MCM_F_STACK];" % x)
            pre.append("int* %s = mcm_f_temp(s_%s, sizeof s_%s, n, sizeof *%s);" % (c, x, x, c))
            actuals.append(c)
            post.append("if (ok) for (int i = 0; i < c_%s; ++i) %s[i] = %s[i] + 1;" % (outcount, f, c))
            cleanup.append("mcm_f_temp_free(%s, s_%s);" % (c, x))
        elif conv == "request_in":
            actuals.append("PMPI_Request_f2c(*%s)" % f)
        elif conv == "request" and CREATES_REQUEST.search(function):
            pre.append("MPI_Request %s = MPI_REQUEST_NULL;" % c)
            actuals.append("&" + c)
            post.append("if (rc == MPI_SUCCESS) *%s = PMPI_Request_c2f(%s);" % (f, c))
        elif conv == "request":
            pre.append("MPI_Request %s = PMPI_Request_f2c(*%s);" % (c, f))
            pre.append("const MPI_Request %s_in = %s;" % (c, c))
            actuals.append("&" + c)
            post.append("mcm_f_request_back(%s, %s_in, %s);" % (f, c, c))
        elif conv == "requests":
            require(count, "array %s without a count/incount parameter" % x)
            need_n = True
            pre.append("MPI_Request s_%s[2 * MCM_F_STACK];" % x)
            pre.append("MPI_Request* %s = mcm_f_temp(s_%s, sizeof s_%s, 2 * n, sizeof *%s);" % (c, x, x, c))
            pre.append("MPI_Request* %s_in = %s + n;" % (c, c))
            pre.append("for (size_t i = 0; i < n; ++i) %s_in[i] = %s[i] = PMPI_Request_f2c(%s[i]);" % (c, c, f))
            actuals.append(c)
            post.append("for (size_t i = 0; i < n; ++i) mcm_f_request_back(&%s[i], %s_in[i], %s[i]);" % (f, c, c))
            cleanup.append("mcm_f_temp_free(%s, s_%s);" % (c, x))
        elif conv == "status_out":
            pre.append("MPI_Status %s;" % c)
            pre.append("MPI_Status* p_%s = %s == MPI_F_STATUS_IGNORE ? MPI_STATUS_IGNORE : &%s;" % (x, f, c))
            actuals.append("p_" + x)
            post.append("if (%s && p_%s != MPI_STATUS_IGNORE) PMPI_Status_c2f(p_%s, %s);" % (done, x, x, f))
        elif conv == "statuses_out":
            require(count, "array %s without a count/incount parameter" % x)
            need_n = True
            length = "mcm_f_len(c_%s)" % outcount if outcount else "n"
            pre.append("MPI_Status s_%s[MCM_F_STACK];" % x)
            pre.append("MPI_Status* %s = %s == MPI_F_STATUSES_IGNORE ? MPI_STATUSES_IGNORE"
                       " : mcm_f_temp(s_%s, sizeof s_%s, n, sizeof *%s);" % (c, f, x, x, c))
            actuals.append(c)
            post.append("if (%s && %s != MPI_STATUSES_IGNORE)\n    for (size_t i = 0; i < %s; ++i)"
                        " PMPI_Status_c2f(&%s[i], %s + i * MCM_F_STATUS_SIZE);" % (done, c, length, c, f))
            cleanup.append("if (%s != MPI_STATUSES_IGNORE) mcm_f_temp_free(%s, s_%s);" % (c, c, x))
        elif conv == "message" and "probe" in function.lower():
            pre.append("MPI_Message %s = MPI_MESSAGE_NULL;" % c)
            actuals.append("&" + c)
            post.append("if (%s) *%s = mcm_message_c2f(%s);" % (done, f, c))
        elif conv == "message":
            pre.append("MPI_Message %s = mcm_message_f2c(*%s);" % (c, f))
            pre.append("const MPI_Message %s_in = %s;" % (c, c))
            actuals.append("&" + c)
            post.append("*%s = mcm_message_back(*%s, %s_in, %s);" % (f, f, c, c))
        else:
            raise AssertionError(conv)

    if need_n:
        # The length of the arrays: right after the count's own conversion.
        at = next(i for i, line in enumerate(pre) if line.startswith("const int c_%s " % count)) + 1
        pre.insert(at, "const size_t n = mcm_f_len(c_%s);" % count)
    formals.append("MPI_Fint* ierr")
    proto = ", ".join(formals)
    short = function.lower()[4:]
    body = ["/* %s -> %s(%s) */" % (function.upper(), function, ", ".join(names))]
    body.append("static void mcm_fb_%s(%s) {" % (short, proto))
    body += ["  " + line for line in pre]
    body.append("  const int rc = %s(%s);" % (function, ", ".join(actuals)))
    body.append("  if (ierr) *ierr = rc;")
    if any(re.search(r"\bok\b", line) for line in post):
        body.append("  const int ok = rc == MPI_SUCCESS || rc == MPI_ERR_IN_STATUS;")
    body += ["  " + line for line in post + cleanup]
    body.append("}")
    for alias in fortran_aliases(function.lower()):
        body.append('void %s(%s) __attribute__((alias("mcm_fb_%s")));' % (alias, proto, short))
    return "\n".join(body) + "\n"


def fortran_true(includes):
    """Open MPI's value of Fortran .TRUE. (OMPI_FORTRAN_VALUE_TRUE) if its configuration
    header is installed, else gfortran's, 1."""
    for d in includes:
        for rel in ("opal_config.h", "openmpi/opal_config.h"):
            path = os.path.join(d, rel)
            if os.path.exists(path):
                m = re.search(r"^#define OMPI_FORTRAN_VALUE_TRUE\s+(-?\d+)", open(path).read(), re.M)
                if m:
                    return m.group(1), path
    return "1", "default: gfortran's .TRUE."


def print_conversions():
    row = "%-14s %-17s %-14s %s"
    print(row % ("C type", "name", "conversion", "Fortran -> C / C -> Fortran"))
    rows = [(t, "/".join(n) if isinstance(n, tuple) else n or "*", conv, doc)
            for t, n, conv, doc in CONVERSIONS]
    rows += [("(%s)" % fn, n, conv, doc) for (fn, n), (conv, doc) in FUNCTION_CONVERSIONS.items()]
    for t, n, conv, doc in rows:
        if len(t) > 14 or len(n) > 17:  # too wide for the columns: on a line of its own
            print("%s %s" % (t, n))
            t = n = ""
        print(row % (t, n, conv, doc))


def check_defined(special, library, nm):
    """Exits with the list of the functions whose C special.txt says is hand-written
    (HAND_WRITTEN_C) that `library`, the linked libmcm.so, does not define. The generator
    writes no C for them, so nothing else fails: a bridge would call Open MPI's own."""
    defined = defined_symbols(library, nm)
    missing = sorted(n for n, kind in special.items() if kind in HAND_WRITTEN_C and n not in defined)
    if missing:
        sys.exit("generate_wrappers: %s does not define these functions, whose C special.txt says"
                 " is hand-written: %s" % (library, " ".join(missing)))


def main():
    if sys.argv[1:] == ["--conversions"]:
        print_conversions()
        return
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check-defined", metavar="LIBMCM",
                    help="only check that LIBMCM defines every hand-written function")
    ap.add_argument("--cc")
    ap.add_argument("-I", dest="includes", action="append", default=[])
    ap.add_argument("--mpifh-library", help="Open MPI's Fortran bindings (libmpi_mpifh.so)")
    ap.add_argument("--f08-library", help="Open MPI's mpi_f08 bindings (libmpi_usempif08.so)")
    ap.add_argument("--nm", default="nm")
    ap.add_argument("--special", required=True)
    ap.add_argument("--out")
    a = ap.parse_args()

    special = load_special(a.special)
    if a.check_defined:
        check_defined(special, a.check_defined, a.nm)
        return
    if not a.cc or not a.out:
        ap.error("--cc and --out are required")
    mpifh = defined_symbols(a.mpifh_library, a.nm)
    F08_PMPI.update(load_f08_imports(a.f08_library, a.nm))
    for symbol, address in (mpifh or {}).items():
        m = re.match(r"^mpi_(\w+?)_$", symbol)
        if m and not symbol.endswith("__") and mpifh.get("ompi_%s_f" % m.group(1)) == address:
            OMPI_F_ALIASES.add("ompi_%s_f" % m.group(1))
    seen, table, c_code, f_code, b_code = set(), [], [], [], []
    decls_list = list(declarations(preprocess(a.cc, a.includes)))
    decls = {}
    for _, n, p in decls_list:
        decls.setdefault(n, p)
    for ret, name, params in decls_list:
        kind = special.get(name, "generated")
        if name in seen or kind in ("hand-written", "not-wrapped"):
            continue
        if kind not in BRIDGED and not any(COMM_PARAM.match(p) for p in params):
            continue
        seen.add(name)
        has_f = mpifh is not None and ("p" + name.lower() + "_") in mpifh
        if kind in BRIDGED:
            # C hand-written (p2p_wrappers.cpp, completion_wrappers.cpp,
            # collective_wrappers.cpp); Fortran bridged.
            if has_f:
                b_code.append(fortran_bridge(ret, name, params))
        else:
            constructor = kind == "constructor"
            twin = nonblocking_twin(name, params, decls)
            c_code.append(c_wrapper(ret, name, params, constructor, twin))
            if has_f:
                f_code.append(fortran_wrapper(name, params, constructor, twin))
        table.append((name, family(name), kind, has_f))
    missing = sorted(n for n, kind in special.items() if kind in BRIDGED and n not in seen)
    if missing:
        sys.exit("generate_wrappers: bridged functions not declared in mpi.h: " + " ".join(missing))
    table += [(n, family(n), kind, kind == "hand-written")
              for n, kind in sorted(special.items()) if kind in ("hand-written", "not-wrapped")]
    if len(table) < 100:
        sys.exit("generate_wrappers: only %d functions with an MPI_Comm found: is this mpi.h?" % len(table))

    os.makedirs(a.out, exist_ok=True)
    common = HEADER + '#include <stddef.h>\n#include <mpi.h>\n\n#include "substitution.h"\n\n'
    common += '#pragma GCC diagnostic ignored "-Wdeprecated-declarations"\n\n'
    write(os.path.join(a.out, "c_wrappers.c"), common + "\n".join(c_code))
    write(os.path.join(a.out, "fortran_wrappers.c"), common + "\n".join(f_code))
    true_value, true_origin = fortran_true(a.includes)
    bridges = HEADER + '#include <stddef.h>\n#include <mpi.h>\n\n#include "fortran/fortran_bridge.h"\n\n'
    bridges += '#pragma GCC diagnostic ignored "-Wdeprecated-declarations"\n\n'
    bridges += "/* Fortran LOGICAL values (.TRUE.: %s). */\n" % true_origin
    bridges += "#define MCM_FORTRAN_TRUE %s\n#define MCM_FORTRAN_FALSE 0\n\n" % true_value
    bridges += ('_Static_assert(sizeof(MPI_Fint) == sizeof(int), "ints_in: Fortran INTEGER arrays'
                ' are passed to C as they are");\n\n')
    write(os.path.join(a.out, "fortran_bridges.c"), bridges + "\n".join(b_code))
    rows = "".join('  {"%s", "%s", "%s", %d},\n' % (n, f, o, int(h)) for n, f, o, h in table)
    write(os.path.join(a.out, "intercepted_table.c"),
          HEADER + '#include "intercepted.h"\n\nconst struct mcm_intercepted mcm_intercepted_table[] = {\n'
          + rows + "};\nconst size_t mcm_intercepted_count = %d;\n" % len(table))
    print("generate_wrappers: %d rows in the table, %d generated C wrappers, %d Fortran entry points,"
          " %d Fortran bridges" % (len(table), len(c_code), len(f_code), len(b_code)))


def write(path, text):
    # Only touch the file when it changes, so rebuilds stay incremental.
    if os.path.exists(path) and open(path).read() == text:
        return
    with open(path, "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
