// SPDX-License-Identifier: GPL-2.0-only
/*
 * insn-report DIR: the tables of scripts/bench --insn from a run's files.
 *
 * Reads, in DIR (one run of scripts/bench --insn):
 *   insn.jsonl            the guest's records (tools/bench/guest-bench-insn.sh):
 *                         one "meta", one "syms" per driver pass (the file
 *                         of its /proc/kallsyms dump), one "window" per
 *                         measured fio job, in the order the guest ran them
 *   host.json             the host's side (commit, date, icount, times);
 *                         optional
 *   windows/win-NNNN.tbs  the plugin's counts of window NNNN
 *                         (tools/insn/insncount.c): a header line, then
 *                         "<vaddr hex> <insns in the block> <executions>"
 * and writes DIR/insn.json and DIR/insn.txt (also printed): guest
 * instructions per I/O of each driver per job, for the whole guest and per
 * kernel module, ours/in-tree, the A/A spread (the same driver measured in
 * two passes of the same boot) and the functions where the drivers differ
 * most.
 *
 * A translation block belongs to the function whose kallsyms address is
 * the closest at or below the block's first instruction (text symbols
 * only), and so to that function's module ("vmlinux" for the kernel
 * itself); user-space addresses are "[user]", kernel addresses farther
 * than 256 KiB above the closest symbol "[unknown]".
 *
 * With --lines KO, instead: the instructions inside one module (default
 * ib_srpt) per I/O and source line, for each window of one pass, from the
 * blocks of the window and objdump -d -l of the module object KO (built
 * with debug information, the build that ran: see annotate()).
 *
 * Exit status: 0, or 1 if a file is missing or inconsistent (the plugin
 * wrote a different number of windows than the guest recorded, a window's
 * blocks do not add up to its header), 2 for usage errors.
 */
#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdarg>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <dirent.h>
#include <getopt.h>

#include <nlohmann/json.hpp>

namespace {

[[noreturn]] void die(const std::string &msg)
{
	std::fprintf(stderr, "insn-report: %s\n", msg.c_str());
	std::exit(1);
}

// ------------------------------------------------------------------ JSON --

// The guest's records and the report: objects keep their key order.
using Json = nlohmann::ordered_json;

// A number of the report as it has always been written: integers in full,
// others to 6 significant digits (printf's %.6g), null if not finite.
Json number(double v)
{
	char buf[32];

	if (!std::isfinite(v))
		return nullptr;
	if (v != std::floor(v) || std::fabs(v) >= 9e15) {
		std::snprintf(buf, sizeof(buf), "%.6g", v);
		v = std::strtod(buf, nullptr);
		if (v != std::floor(v) || std::fabs(v) >= 9e15)
			return v;
	}
	return static_cast<int64_t>(v);
}

// j's floating-point numbers as number() writes them.
void round_numbers(Json &j)
{
	if (j.is_number_float())
		j = number(j.get<double>());
	else if (j.is_structured())
		for (auto &v : j)
			round_numbers(v);
}

std::string dump(Json j, int indent = -1)
{
	round_numbers(j);
	return j.dump(indent, ' ', false, Json::error_handler_t::replace);
}

Json parse(const std::string &text, const std::string &where)
{
	try {
		return Json::parse(text);
	} catch (const Json::parse_error &e) {
		std::string what = e.what();
		size_t p = what.find("] ");	// "[json.exception.parse_error.N] "
		die("bad JSON (" + (p == std::string::npos ? what : what.substr(p + 2)) +
		    ") in " + where);
	}
}

// Member k of object j: a string as it is, other values in JSON; def if
// there is no such member or it is null.
std::string str(const Json &j, const std::string &k, const std::string &def = "")
{
	if (!j.is_object())
		return def;
	auto it = j.find(k);
	if (it == j.end() || it->is_null())
		return def;
	return it->is_string() ? it->get<std::string>() : dump(*it);
}

// Member k of object j if it is a number, def otherwise.
double num(const Json &j, const std::string &k, double def = 0)
{
	if (!j.is_object())
		return def;
	auto it = j.find(k);
	return it != j.end() && it->is_number() ? it->get<double>() : def;
}

std::string read_text(const std::string &path)
{
	std::ifstream f(path, std::ios::binary);
	if (!f)
		die("cannot read " + path);
	std::ostringstream ss;
	ss << f.rdbuf();
	return ss.str();
}

// --------------------------------------------------------------- symbols --

const uint64_t KERNEL_START = 0xffff800000000000ull;
const uint64_t MAX_FUNCTION = 1u << 18;
const char *const USER = "[user]";

struct Sym {
	uint64_t addr;
	std::string name, mod;
};

// The text symbols of one /proc/kallsyms dump, sorted by address.
class Symbols {
public:
	explicit Symbols(const std::string &path)
	{
		std::ifstream f(path);
		std::string line;

		if (!f)
			die("cannot read " + path);
		while (std::getline(f, line)) {
			std::istringstream ls(line);
			std::string addr, type, name, mod;
			if (!(ls >> addr >> type >> name))
				continue;
			if (type != "t" && type != "T" && type != "w" && type != "W")
				continue;
			if (!name.compare(0, 6, "__pfx_"))
				continue;	// function padding (6.x): no code of its own
			ls >> mod;
			Sym s{std::strtoull(addr.c_str(), nullptr, 16), name,
			      mod.empty() ? "vmlinux" : mod.substr(1, mod.size() - 2)};
			if (!s.addr)
				die(path + ": zero addresses (kptr_restrict?)");
			syms.push_back(std::move(s));
		}
		if (syms.empty())
			die(path + ": no text symbols");
		std::stable_sort(syms.begin(), syms.end(),
				 [](const Sym &x, const Sym &y) { return x.addr < y.addr; });
	}

	// The kernel function a guest virtual address is in, or nullptr.
	const Sym *find(uint64_t va) const
	{
		if (va < KERNEL_START)
			return nullptr;
		auto it = std::upper_bound(syms.begin(), syms.end(), va,
					   [](uint64_t v, const Sym &s) { return v < s.addr; });
		if (it == syms.begin() || va - std::prev(it)->addr > MAX_FUNCTION)
			return nullptr;
		return &*std::prev(it);
	}

	// (module, function) of a guest virtual address.
	std::pair<std::string, std::string> lookup(uint64_t va) const
	{
		if (va < KERNEL_START)
			return {USER, USER};
		const Sym *s = find(va);
		if (!s)
			return {"[kernel]", "[unknown]"};
		return {s->mod, s->name};
	}

private:
	std::vector<Sym> syms;
};

// --------------------------------------------------------------- windows --

struct Window {
	uint64_t insns = 0;
	std::map<std::string, uint64_t> mods, funcs;	// funcs: "module:function"
};

// The file of window SEQ of the run in DIR.
std::string window_file(const std::string &dir, double seq)
{
	char name[32];

	std::snprintf(name, sizeof(name), "win-%04d.tbs", static_cast<int>(seq));
	return dir + "/windows/" + name;
}

// Calls block(va, insns in the block, executions) for every block of the
// window file PATH, and checks that they add up to its header's count.
template <typename F> void for_each_block(const std::string &path, F block)
{
	std::ifstream f(path);
	std::string line;
	long long header = -1;
	uint64_t total = 0;

	if (!f)
		die("cannot read " + path);
	while (std::getline(f, line)) {
		if (line.empty())
			continue;
		if (line[0] == '#') {
			// "# insncount window N: T tbs, I insns"
			std::istringstream ls(line);
			std::string prev, word;
			while (ls >> word) {
				if (word == "insns")
					header = std::atoll(prev.c_str());
				prev = word;
			}
			continue;
		}
		char *end;
		const char *s = line.c_str();
		uint64_t va = std::strtoull(s, &end, 16);
		uint64_t n = std::strtoull(end, &end, 10);
		uint64_t execs = std::strtoull(end, &end, 10);
		total += n * execs;
		block(va, n, execs);
	}
	if (header >= 0 && static_cast<uint64_t>(header) != total)
		die(path + ": the blocks add up to " + std::to_string(total) +
		    " instructions, the header says " + std::to_string(header));
}

Window read_window(const std::string &path, const Symbols &syms)
{
	Window w;

	for_each_block(path, [&](uint64_t va, uint64_t n, uint64_t execs) {
		uint64_t insns = n * execs;
		auto mf = syms.lookup(va);
		w.mods[mf.first] += insns;
		w.funcs[mf.first + ":" + mf.second] += insns;
		w.insns += insns;
	});
	return w;
}

// ---------------------------------------------------------------- report --

const std::vector<std::string> MAIN_MODULES = {"ib_srpt", "target_core_mod", "rdma_rxe",
					       "ib_srp", "ib_core"};
const size_t TOP_FUNCTIONS = 12;

// Per pass and job: instructions per I/O.
struct Measured {
	std::string driver;
	uint64_t ios = 0, insns = 0;
	double total = 0;
	std::map<std::string, double> mods, funcs;
};

struct Pass {
	std::string name, driver;
};

double mean(const std::vector<double> &v)
{
	double s = 0;
	for (double x : v)
		s += x;
	return v.empty() ? NAN : s / static_cast<double>(v.size());
}

// spread_pct: (max - min) / mean, in percent; NaN for fewer than 2 values.
double spread_pct(const std::vector<double> &v)
{
	if (v.size() < 2)
		return NAN;
	auto mm = std::minmax_element(v.begin(), v.end());
	double m = mean(v);
	return m ? (*mm.second - *mm.first) / m * 100 : NAN;
}

double range(const std::vector<double> &v)
{
	if (v.size() < 2)
		return NAN;
	auto mm = std::minmax_element(v.begin(), v.end());
	return *mm.second - *mm.first;
}

double get(const std::map<std::string, double> &m, const std::string &k)
{
	auto it = m.find(k);
	return it == m.end() ? 0 : it->second;
}

std::string fmt(double v, const char *f = "%.0f")
{
	char buf[64];
	if (!std::isfinite(v))
		return "-";
	std::snprintf(buf, sizeof(buf), f, v);
	return buf;
}

std::string printf_str(const char *f, ...) __attribute__((format(printf, 1, 2)));
std::string printf_str(const char *f, ...)
{
	char buf[1024];
	va_list ap;
	va_start(ap, f);
	std::vsnprintf(buf, sizeof(buf), f, ap);
	va_end(ap);
	return buf;
}

struct JobResult {
	std::string job;
	uint64_t ios = 0;
	// Means over the passes of each driver (NaN: no such pass).
	double ours = NAN, intree = NAN;
	std::map<std::string, double> ours_mods, intree_mods;
	std::map<std::string, std::vector<double>> ours_mod_passes;
	std::vector<double> ours_totals, intree_totals;
	struct Diff {
		std::string func;
		double ours, intree, aa;
	};
	std::vector<Diff> top;
};

class Report {
public:
	explicit Report(const std::string &d) : dir(d) {}
	int run();

private:
	std::string dir;
	Json meta = Json::object();
	std::vector<Pass> passes;
	std::map<std::string, std::pair<std::string, std::string>> loaded;	// pass: srcversion, taint
	std::vector<std::string> jobs;
	std::map<std::pair<std::string, std::string>, Measured> data;	// (pass, job)
	std::vector<JobResult> results;

	std::vector<std::string> passes_of(const std::string &driver) const
	{
		std::vector<std::string> v;
		for (const auto &p : passes)
			if (p.driver == driver)
				v.push_back(p.name);
		return v;
	}
	const Measured *at(const std::string &pass, const std::string &job) const
	{
		auto it = data.find({pass, job});
		return it == data.end() ? nullptr : &it->second;
	}
	void load();
	void compute();
	Json to_json() const;
	std::string render() const;
};

void Report::load()
{
	std::vector<Json> recs;
	std::map<std::string, std::unique_ptr<Symbols>> syms;
	std::vector<const Json *> windows;
	std::istringstream in(read_text(dir + "/insn.jsonl"));
	std::string line;
	bool have_meta = false;

	for (int n = 1; std::getline(in, line); n++)
		if (line.find_first_not_of(" \t\r") != std::string::npos)
			recs.push_back(parse(line, dir + "/insn.jsonl line " + std::to_string(n)));
	for (const auto &r : recs) {
		std::string kind = str(r, "kind");
		if (kind == "meta" && !have_meta) {
			meta = r;
			have_meta = true;
		} else if (kind == "syms") {
			syms[str(r, "pass")] = std::make_unique<Symbols>(dir + "/" + str(r, "file"));
			if (r.contains("taint"))
				loaded[str(r, "pass")] = {str(r, "srcversion"), str(r, "taint")};
		} else if (kind == "window") {
			windows.push_back(&r);
		}
	}
	if (!have_meta)
		die("no meta record in " + dir + "/insn.jsonl");
	std::string host = dir + "/host.json";
	if (FILE *f = std::fopen(host.c_str(), "r")) {
		std::fclose(f);
		Json h = parse(read_text(host), host);
		if (h.is_object())
			for (const auto &kv : h.items())
				meta[kv.key()] = kv.value();
	}
	if (windows.empty())
		die("no measured window in insn.jsonl");

	size_t files = 0;
	if (DIR *d = opendir((dir + "/windows").c_str())) {
		while (struct dirent *e = readdir(d)) {
			std::string n = e->d_name;
			if (!n.compare(0, 4, "win-") && n.size() > 4 &&
			    !n.compare(n.size() - 4, 4, ".tbs"))
				files++;
		}
		closedir(d);
	}
	if (files != windows.size())
		die(std::to_string(windows.size()) + " windows recorded by the guest, " +
		    std::to_string(files) + " written by the plugin");

	for (const Json *w : windows) {
		std::string pass = str(*w, "pass"), job = str(*w, "job");
		std::string file = window_file(dir, num(*w, "seq"));
		if (!syms.count(pass))
			die("no symbols for pass " + pass);
		Window win = read_window(file, *syms[pass]);
		Measured m;
		m.driver = str(*w, "driver");
		m.ios = static_cast<uint64_t>(num(*w, "ios"));
		if (!m.ios)
			die(file.substr(file.rfind('/') + 1) + ": no I/O count");
		double n = static_cast<double>(m.ios);
		m.insns = win.insns;
		m.total = static_cast<double>(win.insns) / n;
		for (const auto &kv : win.mods)
			m.mods[kv.first] = static_cast<double>(kv.second) / n;
		for (const auto &kv : win.funcs)
			m.funcs[kv.first] = static_cast<double>(kv.second) / n;
		data[{pass, job}] = std::move(m);
		if (std::none_of(passes.begin(), passes.end(),
				 [&](const Pass &p) { return p.name == pass; }))
			passes.push_back({pass, str(*w, "driver")});
		if (std::find(jobs.begin(), jobs.end(), job) == jobs.end())
			jobs.push_back(job);
	}
}

void Report::compute()
{
	auto ours = passes_of("ours"), intree = passes_of("intree");

	for (const auto &job : jobs) {
		JobResult r;
		std::set<std::string> mods, funcs;
		r.job = job;
		for (const auto &p : passes)
			if (const Measured *m = at(p.name, job)) {
				r.ios = m->ios;
				for (const auto &kv : m->mods)
					mods.insert(kv.first);
				for (const auto &kv : m->funcs)
					funcs.insert(kv.first);
			}
		// side: the mean over a driver's passes of f(pass).
		auto side = [&](const std::vector<std::string> &pl, auto f) {
			std::vector<double> v;
			for (const auto &p : pl)
				if (const Measured *m = at(p, job))
					v.push_back(f(*m));
			return v;
		};
		r.ours_totals = side(ours, [](const Measured &m) { return m.total; });
		r.intree_totals = side(intree, [](const Measured &m) { return m.total; });
		r.ours = mean(r.ours_totals);
		r.intree = mean(r.intree_totals);
		for (const auto &mod : mods) {
			auto fm = [&](const Measured &m) { return get(m.mods, mod); };
			r.ours_mod_passes[mod] = side(ours, fm);
			r.ours_mods[mod] = mean(r.ours_mod_passes[mod]);
			r.intree_mods[mod] = mean(side(intree, fm));
		}
		if (std::isfinite(r.ours) && std::isfinite(r.intree)) {
			for (const auto &fn : funcs) {
				auto ff = [&](const Measured &m) { return get(m.funcs, fn); };
				std::vector<double> o = side(ours, ff);
				JobResult::Diff d{fn, mean(o), mean(side(intree, ff)), range(o)};
				if (std::fabs(d.ours - d.intree) >= 0.5)
					r.top.push_back(d);
			}
			std::sort(r.top.begin(), r.top.end(), [](const auto &x, const auto &y) {
				double a = std::fabs(x.ours - x.intree), b = std::fabs(y.ours - y.intree);
				return a != b ? a > b : x.func < y.func;
			});
			if (r.top.size() > TOP_FUNCTIONS)
				r.top.resize(TOP_FUNCTIONS);
		}
		results.push_back(std::move(r));
	}
}

Json Report::to_json() const
{
	Json out = Json::object(), jp = Json::array(), jj = Json::array();

	out["meta"] = meta;
	for (const auto &p : passes) {
		Json o = Json::object();
		o["pass"] = p.name;
		o["driver"] = p.driver;
		jp.push_back(o);
	}
	out["passes"] = jp;
	for (const auto &r : results) {
		Json j = Json::object(), ratio = Json::object(), pp = Json::object();
		j["job"] = r.job;
		j["ios"] = r.ios;
		auto side = [&](double total, const std::map<std::string, double> &mods) {
			if (!std::isfinite(total))
				return Json();
			Json s = Json::object(), m = Json::object();
			s["total"] = total;
			for (const auto &kv : mods)
				m[kv.first] = number(kv.second);
			s["modules"] = m;
			return s;
		};
		j["ours"] = side(r.ours, r.ours_mods);
		j["intree"] = side(r.intree, r.intree_mods);
		ratio["total"] = number(r.ours / r.intree);
		for (const auto &m : MAIN_MODULES)
			ratio[m] = number(get(r.ours_mods, m) / get(r.intree_mods, m));
		j["ratio"] = ratio;
		Json aa;
		if (r.ours_totals.size() >= 2) {
			aa = Json::object();
			aa["passes"] = r.ours_totals.size();
			aa["total_pct"] = number(spread_pct(r.ours_totals));
			auto it = r.ours_mod_passes.find("ib_srpt");
			aa["ib_srpt_pct"] = it == r.ours_mod_passes.end() ? Json()
					    : number(spread_pct(it->second));
		}
		j["aa"] = aa;
		if (r.intree_totals.size() >= 2)
			j["aa_intree_total_pct"] = number(spread_pct(r.intree_totals));
		Json top = Json::array();
		for (const auto &d : r.top) {
			Json t = Json::object();
			t["function"] = d.func;
			t["ours"] = number(d.ours);
			t["intree"] = number(d.intree);
			t["diff"] = number(d.ours - d.intree);
			t["ours_aa_range"] = number(d.aa);
			top.push_back(t);
		}
		j["top_functions"] = top;
		for (const auto &p : passes) {
			const Measured *m = at(p.name, r.job);
			if (!m)
				continue;
			Json o = Json::object(), mods = Json::object(), funcs = Json::object();
			o["driver"] = m->driver;
			o["total"] = m->total;
			o["insns"] = m->insns;
			for (const auto &kv : m->mods)
				mods[kv.first] = kv.second;
			o["modules"] = mods;
			// Functions of at least one instruction per I/O.
			for (const auto &kv : m->funcs)
				if (kv.second >= 1)
					funcs[kv.first] = kv.second;
			o["functions"] = funcs;
			pp[p.name] = o;
		}
		j["per_pass"] = pp;
		jj.push_back(j);
	}
	out["jobs"] = jj;
	return out;
}

std::string Report::render() const
{
	std::string t;
	auto add = [&](const std::string &s) { t += s + "\n"; };
	std::string plist;

	for (const auto &p : passes)
		plist += (plist.empty() ? "" : ", ") + p.name;
	add("ib_srpt instruction counts: ours (" + str(meta, "commit", "?") + ") vs the in-tree ib_srpt, kernel " +
	    str(meta, "kver", "?") + ", " + str(meta, "date", "?"));
	add("QEMU/TCG, " + str(meta, "guest_cpus", "1") + " vCPU, " +
	    str(meta, "icount", "no icount") + ", plugin tools/insn/insncount.c; rxe0, " +
	    str(meta, "backstore", "?") + ", ib_srp ch_count=" + str(meta, "ch", "1") +
	    ", fio iomem=" + str(meta, "iomem", "malloc"));
	add("passes in order: " + plist + "; a driver's figure is the mean of its passes");
	if (!loaded.empty()) {
		std::string l, warn;
		std::set<std::string> ours_sv;
		for (const auto &p : passes)
			if (p.driver == "ours" && loaded.count(p.name))
				ours_sv.insert(loaded.at(p.name).first);
		for (const auto &p : passes) {
			auto it = loaded.find(p.name);
			if (it == loaded.end())
				continue;
			const auto &sv = it->second.first, &taint = it->second.second;
			l += (l.empty() ? "" : ", ") + p.name + " " +
			     (sv.empty() ? "no srcversion" : "srcversion " + sv) +
			     " taint " + (taint.empty() ? "-" : taint);
			if (p.driver == "intree" && (taint.find('O') != std::string::npos ||
						    (!sv.empty() && ours_sv.count(sv))))
				warn += " " + p.name;
		}
		add("loaded ib_srpt: " + l);
		if (!warn.empty())
			add("WARNING: our module was loaded in the in-tree pass(es)" + warn);
	}
	add("guest instructions per I/O, from fio's first io_submit to its N-th completion: all of the guest (fio, kernel, softirqs)");
	add("");
	add(printf_str("%-18s %5s | %-26s | %-24s | %-17s | %8s", "", "", "whole guest",
		       "inside ib_srpt", "target_core_mod", "A/A"));
	add(printf_str("%-18s %5s | %9s %9s %6s | %8s %8s %6s | %8s %8s | %8s", "job", "N",
		       "ours", "in-tree", "ratio", "ours", "in-tree", "ratio", "ours", "in-tree", "spread"));
	for (const auto &r : results) {
		double so = get(r.ours_mods, "ib_srpt"), si = get(r.intree_mods, "ib_srpt");
		add(printf_str("%-18s %5" PRIu64 " | %9s %9s %6s | %8s %8s %6s | %8s %8s | %8s",
			       r.job.c_str(), r.ios, fmt(r.ours).c_str(), fmt(r.intree).c_str(),
			       fmt(r.ours / r.intree, "%.3f").c_str(), fmt(so).c_str(), fmt(si).c_str(),
			       fmt(so / si, "%.3f").c_str(),
			       fmt(get(r.ours_mods, "target_core_mod")).c_str(),
			       fmt(get(r.intree_mods, "target_core_mod")).c_str(),
			       (fmt(spread_pct(r.ours_totals), "%.2f") + "%").c_str()));
	}
	add("");
	// A/A: the instrument's spread, our module measured in two passes.
	std::vector<double> aa, aas;
	size_t np = 0;
	for (const auto &r : results) {
		if (r.ours_totals.size() < 2)
			continue;
		np = r.ours_totals.size();
		aa.push_back(spread_pct(r.ours_totals));
		auto it = r.ours_mod_passes.find("ib_srpt");
		if (it != r.ours_mod_passes.end())
			aas.push_back(spread_pct(it->second));
	}
	if (!aa.empty())
		add(printf_str("A/A (our module in %zu passes of the same boot; (max - min) / mean): whole guest max %.3f%%, mean %.3f%%; inside ib_srpt max %.3f%%",
			       np, *std::max_element(aa.begin(), aa.end()), mean(aa),
			       aas.empty() ? NAN : *std::max_element(aas.begin(), aas.end())));
	else
		add("A/A: our module ran in one pass only (--passes \"ours intree ours\" for the spread)");
	std::set<std::string> nine;
	for (const auto &kv : data)
		for (const auto &m : kv.second.mods)
			if (!m.first.compare(0, 5, "9pnet"))
				nine.insert(m.first + " in " + kv.first.second + " (" + kv.first.first + ")");
	if (!nine.empty()) {
		std::string s;
		for (const auto &x : nine)
			s += (s.empty() ? "" : ", ") + x;
		add("WARNING: 9p requests inside the windows (host I/O: not deterministic): " + s);
	}
	for (const auto &r : results) {
		if (!std::isfinite(r.ours) || !std::isfinite(r.intree))
			continue;
		add("");
		add("== " + r.job + ", " + std::to_string(r.ios) + " I/Os: instructions per I/O by module (A/A: max - min of our passes)");
		add(printf_str("   %-22s %9s %9s %9s %6s %7s", "module", "ours", "in-tree", "diff", "ratio", "A/A"));
		std::vector<std::string> mods;
		for (const auto &kv : r.ours_mods)
			mods.push_back(kv.first);
		for (const auto &kv : r.intree_mods)
			if (!r.ours_mods.count(kv.first))
				mods.push_back(kv.first);
		std::sort(mods.begin(), mods.end(), [&](const std::string &a, const std::string &b) {
			double x = get(r.ours_mods, a) + get(r.intree_mods, a);
			double y = get(r.ours_mods, b) + get(r.intree_mods, b);
			return x != y ? x > y : a < b;
		});
		for (const auto &m : mods) {
			double a = get(r.ours_mods, m), b = get(r.intree_mods, m);
			if (a < 0.5 && b < 0.5)
				continue;
			auto it = r.ours_mod_passes.find(m);
			add(printf_str("   %-22s %9.0f %9.0f %+9.0f %6s %7s", m.c_str(), a, b, a - b,
				       fmt(a / b, "%.3f").c_str(),
				       fmt(it == r.ours_mod_passes.end() ? NAN : range(it->second)).c_str()));
		}
		add(printf_str("   %-22s %9.0f %9.0f %+9.0f %6s %7s", "total", r.ours, r.intree,
			       r.ours - r.intree, fmt(r.ours / r.intree, "%.3f").c_str(),
			       fmt(range(r.ours_totals)).c_str()));
		add("   functions where the drivers differ most (per I/O; module:function):");
		add(printf_str("   %9s %9s %9s %7s", "ours", "in-tree", "diff", "A/A"));
		for (const auto &d : r.top)
			add(printf_str("   %9.1f %9.1f %+9.1f %7s  %s", d.ours, d.intree, d.ours - d.intree,
				       fmt(d.aa, "%.1f").c_str(), d.func.c_str()));
	}
	add("");
	if (meta.contains("wall_s"))
		add("Run time: " + str(meta, "wall_s", "?") + " s in all (build, wait for the VM lock, boot, guest); QEMU ran " +
		    str(meta, "qemu_s", "?") + " s");
	return t;
}

int Report::run()
{
	load();
	compute();
	std::string json = dump(to_json(), 1) + "\n", text = render();
	std::ofstream jf(dir + "/insn.json"), tf(dir + "/insn.txt");
	jf << json;
	tf << text;
	if (!jf || !tf)
		die("cannot write " + dir + "/insn.{json,txt}");
	std::fwrite(text.data(), 1, text.size(), stdout);
	return 0;
}

// ----------------------------------------------------------------- lines --

// One instruction of a module's disassembly: its offset in its function
// and the source line it was compiled from ("file.c:123").
struct Insn {
	uint64_t off;
	std::string line;
};

// The instructions of every function of a module object (a .ko built
// with debug information), from objdump -d -l.  Offsets are relative to
// each function's start, as the kallsyms address of the function is the
// start in the guest.
std::map<std::string, std::vector<Insn>> disassemble(const std::string &ko)
{
	std::map<std::string, std::vector<Insn>> fns;
	std::string cmd = "objdump -d -l --no-show-raw-insn '" + ko + "' 2>/dev/null";
	std::unique_ptr<FILE, int (*)(FILE *)> p(popen(cmd.c_str(), "r"), pclose);
	std::vector<Insn> *cur = nullptr;
	uint64_t base = 0;
	std::string src = "?";
	char buf[4096];

	if (!p)
		die("cannot run objdump");
	while (std::fgets(buf, sizeof(buf), p.get())) {
		std::string l(buf);
		while (!l.empty() && (l.back() == '\n' || l.back() == '\r'))
			l.pop_back();
		if (l.empty())
			continue;
		char *end;
		if (l[0] != ' ' && l.find(" <") != std::string::npos && l.back() == ':') {
			// "0000000000001230 <srpt_recv_done>:"
			uint64_t a = std::strtoull(l.c_str(), &end, 16);
			size_t lt = l.find('<'), gt = l.rfind('>');
			if (end != l.c_str() && lt != std::string::npos && gt > lt) {
				cur = &fns[l.substr(lt + 1, gt - lt - 1)];
				base = a;
				src = "?";
			}
			continue;
		}
		if (l[0] == ' ' && cur) {
			// "    1234:\tmov ..."
			uint64_t a = std::strtoull(l.c_str(), &end, 16);
			if (*end == ':')
				cur->push_back({a - base, src});
			continue;
		}
		// "/path/to/file.c:123" or "... (discriminator 2)": the source line
		// of the instructions that follow.
		size_t sp = l.find(' ');
		std::string loc = l.substr(0, sp);
		size_t colon = loc.rfind(':');
		if (colon != std::string::npos && colon + 1 < loc.size() &&
		    loc.find_first_not_of("0123456789", colon + 1) == std::string::npos) {
			size_t slash = loc.rfind('/', colon);
			src = loc.substr(slash == std::string::npos ? 0 : slash + 1);
		}
	}
	if (fns.empty())
		die("objdump found no functions in " + ko);
	return fns;
}

// insn-report --lines KO DIR: where the instructions inside one module go,
// per source line, for every window of one pass (by default our module's
// first pass).  Each block of the window that lies in the module is
// matched to its function's disassembly, and each of its instructions is
// counted at the source line objdump gives for it.  Inlined code counts
// at its own line (a header's), in the function it was inlined into.
int annotate(const std::string &dir, const std::string &ko, const std::string &module,
	     std::string pass, size_t top)
{
	auto fns = disassemble(ko);
	std::istringstream in(read_text(dir + "/insn.jsonl"));
	std::string line, symfile;
	std::vector<Json> windows;

	for (int n = 1; std::getline(in, line); n++) {
		if (line.find_first_not_of(" \t\r") == std::string::npos)
			continue;
		Json r = parse(line, dir + "/insn.jsonl line " + std::to_string(n));
		if (str(r, "kind") == "syms" && pass.empty() && str(r, "driver") == "ours")
			pass = str(r, "pass");
		if (str(r, "kind") == "syms" && str(r, "pass") == pass)
			symfile = dir + "/" + str(r, "file");
		if (str(r, "kind") == "window")
			windows.push_back(r);
	}
	if (symfile.empty())
		die("no symbols for pass '" + pass + "' in " + dir + "/insn.jsonl");
	Symbols syms(symfile);
	size_t shown = 0;

	for (const Json &w : windows) {
		if (str(w, "pass") != pass)
			continue;
		std::string file = window_file(dir, num(w, "seq"));
		double ios = num(w, "ios");
		std::map<std::pair<std::string, std::string>, double> at;	// (function, line)
		std::map<std::string, double> per_fn;
		double total = 0, unmatched = 0;

		if (ios <= 0)
			die(file.substr(file.rfind('/') + 1) + ": no I/O count");
		for_each_block(file, [&](uint64_t va, uint64_t n, uint64_t execs) {
			const Sym *s = syms.find(va);
			if (!s || s->mod != module)
				return;
			double e = static_cast<double>(execs) / ios;
			total += static_cast<double>(n) * e;
			per_fn[s->name] += static_cast<double>(n) * e;
			auto fi = fns.find(s->name);
			if (fi == fns.end()) {
				unmatched += static_cast<double>(n) * e;
				return;
			}
			const auto &v = fi->second;
			auto it = std::lower_bound(v.begin(), v.end(), va - s->addr,
						   [](const Insn &i, uint64_t o) { return i.off < o; });
			if (it == v.end() || it->off != va - s->addr) {
				unmatched += static_cast<double>(n) * e;
				return;
			}
			for (uint64_t k = 0; k < n; k++, ++it) {
				if (it == v.end()) {
					unmatched += static_cast<double>(n - k) * e;
					break;
				}
				at[{s->name, it->line}] += e;
			}
		});
		// The largest count first, ties in name order.
		auto largest_first = [](std::vector<std::pair<double, std::string>> &v) {
			std::stable_sort(v.begin(), v.end(),
					 [](const auto &a, const auto &b) { return a.first > b.first; });
		};
		std::vector<std::pair<double, std::string>> rows;
		for (const auto &kv : at)
			rows.push_back({kv.second, kv.first.first + "  " + kv.first.second});
		largest_first(rows);
		std::printf("== %s %s, %.0f I/Os: %.1f instructions per I/O inside %s",
			    pass.c_str(), str(w, "job").c_str(), ios, total, module.c_str());
		if (unmatched > 0)
			std::printf(" (%.1f in blocks that start inside an instruction of %s:"
				    " code the kernel patched as it loaded the module, or"
				    " another build)",
				    unmatched, ko.c_str());
		std::printf("\n   per function:");
		std::vector<std::pair<double, std::string>> fr;
		for (const auto &kv : per_fn)
			fr.push_back({kv.second, kv.first});
		largest_first(fr);
		for (const auto &r : fr)
			std::printf(" %s %.1f", r.second.c_str(), r.first);
		std::printf("\n");
		for (size_t i = 0; i < rows.size() && i < top; i++)
			std::printf("%9.1f  %s\n", rows[i].first, rows[i].second.c_str());
		shown++;
	}
	if (!shown)
		die("no window of pass '" + pass + "' in " + dir + "/insn.jsonl");
	return 0;
}

} // namespace

int main(int argc, char **argv)
{
	static const char usage[] =
		"usage: insn-report DIR   (the tables of a scripts/bench --insn run)\n"
		"       insn-report --lines KO [--module NAME] [--pass PASS] [--top N] DIR\n"
		"                         (instructions per I/O per source line inside the\n"
		"                         module KO, built with debug information, for each\n"
		"                         window of PASS: default the first pass of ours)\n";
	static const struct option opts[] = {
		{"help", no_argument, nullptr, 'h'},
		{"lines", required_argument, nullptr, 'l'},
		{"module", required_argument, nullptr, 'm'},
		{"pass", required_argument, nullptr, 'p'},
		{"top", required_argument, nullptr, 't'},
		{nullptr, 0, nullptr, 0},
	};
	std::string ko, module = "ib_srpt", pass;
	size_t top = 40;
	int c;

	// "+": options only before DIR, as "insn-report DIR -h" never was help.
	while ((c = getopt_long(argc, argv, "+h", opts, nullptr)) != -1) {
		switch (c) {
		case 'l':
			ko = optarg;
			break;
		case 'm':
			module = optarg;
			break;
		case 'p':
			pass = optarg;
			break;
		case 't':
			top = std::strtoul(optarg, nullptr, 10);
			break;
		default:
			std::fputs(usage, c == 'h' ? stdout : stderr);
			return c == 'h' ? 0 : 2;
		}
	}
	if (optind != argc - 1) {
		std::fputs(usage, stderr);
		return 2;
	}
	try {
		if (!ko.empty())
			return annotate(argv[optind], ko, module, pass, top);
		return Report(argv[optind]).run();
	} catch (const std::exception &e) {
		die(e.what());
	}
}
