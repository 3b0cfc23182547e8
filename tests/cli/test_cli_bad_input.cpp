// The bad-input matrix (docs/RELIABILITY.md): one table of bad inputs over every
// subcommand. Each row runs the CLI and asserts the documented exit code, that stderr
// names what is wrong and where (the option, the file and line), and that no output file
// (nor a temporary one) is left behind.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "test_support.h"

using routelab::test::fixturesDir;
using routelab::test::runRoutelab;
namespace fs = std::filesystem;

namespace {

constexpr int kBadInput = 1;
constexpr int kUsage = 2;

struct BadInput {
  const char* name;
  const char* arguments;  ///< @DIR@: the scratch directory with the inputs below; @FX@: tests/data/opensm
  int exitCode;
  std::vector<const char*> mentions;  ///< parts stderr must contain (after substitution)
  bool needsNonRoot = false;          ///< permission rows: root reads everything
};

std::string slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void spit(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

std::string substitute(std::string text, const fs::path& dir) {
  for (const auto& [key, value] : {std::pair<std::string, std::string>{"@DIR@", dir.string()},
                                   std::pair<std::string, std::string>{"@FX@", fixturesDir()}}) {
    for (std::size_t at = text.find(key); at != std::string::npos; at = text.find(key, at + value.size())) {
      text.replace(at, key.size(), value);
    }
  }
  return text;
}

/// The bad inputs the rows read, written fresh into a scratch directory for each row.
class Inputs {
 public:
  Inputs() {
    static int counter = 0;
    dir_ = routelab::test::scratchDir() / ("bad-input-" + std::to_string(counter++));
    fs::create_directories(dir_);
    const std::string fx = fixturesDir() + "/k4n2/";
    const std::string net = slurp(fx + "topology.net");
    const std::string lfts = slurp(fx + "lfts.lash.dump");
    spit(dir_ / "empty.net", "");
    spit(dir_ / "truncated.net", net.substr(0, net.size() / 2));  // cut inside a record
    spit(dir_ / "binary.net", std::string("\x7f"
                                          "ELF\x02\x01\x01\0\0\0",
                                          10));
    spit(dir_ / "unreadable.net", net);
    fs::permissions(dir_ / "unreadable.net", fs::perms::none);
    spit(dir_ / "k4n2.net", net);
    EXPECT_EQ(std::system(("gzip -c '" + (dir_ / "k4n2.net").string() + "' | head -c 300 > '" +
                           (dir_ / "truncated.net.gz").string() + "'")
                              .c_str()),
              0);
    spit(dir_ / "sl-huge.txt", "# slid dlid sl\n1 5 4294967297\n");
    spit(dir_ / "sl-16.txt", "1 5 16\n");
    spit(dir_ / "sl-lid.txt", "1 999 0\n");
    spit(dir_ / "sl-empty.txt", "");
    spit(dir_ / "lft-header.dump",
         "Unicast lids [0-4294967295] of switch Lid 2 guid 0x0000000000200000 ('kt-s0-0'):\n");
    std::string swapped = lfts;  // the first entry sent out of port 9 of an 8-port switch
    swapped.replace(swapped.find("0x0001 001"), 10, "0x0001 009");
    spit(dir_ / "lft-port.dump", swapped);
    std::string unknownLid = lfts;  // an entry for a CA that is not in the fabric
    unknownLid.replace(unknownLid.find("portguid 0x0000000000100001: 'kt-h00'"), 37,
                       "portguid 0x0000000000abcdef: 'nobody'");
    spit(dir_ / "lft-node.dump", unknownLid);
    spit(dir_ / "lft-truncated.dump", lfts.substr(0, 3 * lfts.size() / 4 - 7));
    // dmodk on kary-ntree:k=2,n=2 with both top switches sending LID 3 (kt-h2) back down to
    // kt-s0-0, which sends it up again: a routing loop.
    spit(dir_ / "lft-loop.dump",
         "Unicast lids [0-4] of switch Lid 0 guid 0x0000000000200000 ('kt-s0-0'):\n"
         "0x0001 001 # Channel Adapter portguid 0x0000000000100001: 'kt-h0'\n"
         "0x0002 002 # Channel Adapter portguid 0x0000000000100003: 'kt-h1'\n"
         "0x0003 003 # Channel Adapter portguid 0x0000000000100005: 'kt-h2'\n"
         "0x0004 004 # Channel Adapter portguid 0x0000000000100007: 'kt-h3'\n"
         "4 lids dumped\n"
         "Unicast lids [0-4] of switch Lid 0 guid 0x0000000000200001 ('kt-s0-1'):\n"
         "0x0001 003 # Channel Adapter portguid 0x0000000000100001: 'kt-h0'\n"
         "0x0002 004 # Channel Adapter portguid 0x0000000000100003: 'kt-h1'\n"
         "0x0003 001 # Channel Adapter portguid 0x0000000000100005: 'kt-h2'\n"
         "0x0004 002 # Channel Adapter portguid 0x0000000000100007: 'kt-h3'\n"
         "4 lids dumped\n"
         "Unicast lids [0-4] of switch Lid 0 guid 0x0000000000200002 ('kt-s1-0'):\n"
         "0x0001 001 # Channel Adapter portguid 0x0000000000100001: 'kt-h0'\n"
         "0x0002 001 # Channel Adapter portguid 0x0000000000100003: 'kt-h1'\n"
         "0x0003 001 # Channel Adapter portguid 0x0000000000100005: 'kt-h2'\n"
         "0x0004 002 # Channel Adapter portguid 0x0000000000100007: 'kt-h3'\n"
         "4 lids dumped\n"
         "Unicast lids [0-4] of switch Lid 0 guid 0x0000000000200003 ('kt-s1-1'):\n"
         "0x0001 001 # Channel Adapter portguid 0x0000000000100001: 'kt-h0'\n"
         "0x0002 001 # Channel Adapter portguid 0x0000000000100003: 'kt-h1'\n"
         "0x0003 001 # Channel Adapter portguid 0x0000000000100005: 'kt-h2'\n"
         "0x0004 002 # Channel Adapter portguid 0x0000000000100007: 'kt-h3'\n"
         "4 lids dumped\n");
    spit(dir_ / "loop-trace.csv", "time,source,destination,bytes\n0,0,2,1024\n");
    spit(dir_ / "bad.pattern", "# src dst\n0 1\n2 99\n");
    spit(dir_ / "self.pattern", "3 3\n");
    before_ = listing();
  }
  ~Inputs() {
    std::error_code ignored;
    fs::permissions(dir_ / "unreadable.net", fs::perms::owner_all, ignored);
    fs::remove_all(dir_, ignored);
  }
  const fs::path& dir() const { return dir_; }
  /// Files in the scratch directory (outputs would land there too).
  std::set<std::string> listing() const {
    std::set<std::string> names;
    for (const auto& entry : fs::recursive_directory_iterator(dir_)) names.insert(entry.path().filename().string());
    return names;
  }
  const std::set<std::string>& before() const { return before_; }

 private:
  fs::path dir_;
  std::set<std::string> before_;
};

const std::vector<BadInput>& matrix() {
  static const std::vector<BadInput> rows = {
      // ---- impossible parameters ------------------------------------------------------------
      {"topo_k0", "topo kary-ntree:k=0,n=2", kBadInput, {"kary-ntree", "'k'"}},
      {"topo_k1", "topo kary-ntree:k=1,n=2", kBadInput, {"kary-ntree: k must be at least 2, got 1"}},
      {"topo_n0", "topo kary-ntree:k=4,n=0", kBadInput, {"kary-ntree", "'n'"}},
      {"topo_k_beyond_int64",
       "topo kary-ntree:k=99999999999999999999,n=2",
       kBadInput,
       {"kary-ntree: option 'k'", "99999999999999999999", "not an integer"}},
      {"topo_k_beyond_32_bits", "topo kary-ntree:k=4294967297,n=2", kBadInput, {"option 'k' must be in"}},
      {"topo_too_large", "topo kary-ntree:k=64,n=6", kBadInput, {"XGFT(6; 64,64,64,64,64,64", "too many nodes"}},
      {"topo_gft2_zero", "topo gft2:n=0,m=4,r=4", kBadInput, {"gft2", "'n'"}},
      {"topo_xgft_mismatch", "topo xgft:h=2,m=4,w=1.4", kBadInput, {"xgft: m and w must each have h entries"}},
      {"topo_random_zero", "topo random:switches=0", kBadInput, {"random", "'switches'"}},
      {"topo_unknown_key", "topo kary-ntree:k=4,n=2,q=1", kBadInput, {"kary-ntree", "'q'"}},
      {"topo_repeated_key", "topo kary-ntree:k=4,n=2,k=5", kBadInput, {"kary-ntree", "'k'"}},
      {"topo_unknown_topology", "topo butterfly:k=4", kBadInput, {"unknown topology 'butterfly'"}},
      {"topo_path_without_its_prefix",
       "topo tests/fabric.net",
       kBadInput,
       {"unknown topology 'tests/fabric.net': a fabric file is given as file:PATH", "e.g. file:tests/fabric.net"}},
      {"topo_fail_too_many_switches",
       "topo kary-ntree:k=4,n=2+fail-switches=9",
       kBadInput,
       {"fail-switches: cannot fail 9 switches, the fabric has only 8"}},
      {"topo_remove_unknown_switch",
       "topo kary-ntree:k=4,n=2+remove-switches=nobody",
       kBadInput,
       {"remove-switches", "nobody"}},
      // ---- files: missing, unreadable, empty, truncated, binary, devices, directories -------
      {"topo_missing_file", "topo file:@DIR@/missing.net", kBadInput, {"cannot open '@DIR@/missing.net'"}},
      {"topo_unreadable_file",
       "topo file:@DIR@/unreadable.net",
       kBadInput,
       {"cannot open '@DIR@/unreadable.net'", "Permission denied"},
       true},
      {"topo_empty_file", "topo file:@DIR@/empty.net", kBadInput, {"@DIR@/empty.net:1:", "empty"}},
      {"topo_truncated_file", "topo file:@DIR@/truncated.net", kBadInput, {"@DIR@/truncated.net:"}},
      {"topo_truncated_gzip",
       "topo file:@DIR@/truncated.net.gz",
       kBadInput,
       {"'@DIR@/truncated.net.gz': corrupt gzip data"}},
      {"topo_binary_file", "topo net:@DIR@/binary.net", kBadInput, {"@DIR@/binary.net:1:"}},
      {"topo_device_zero", "topo file:/dev/zero", kBadInput, {"'/dev/zero' is not a regular file"}},
      {"topo_device_urandom", "topo json:/dev/urandom", kBadInput, {"'/dev/urandom' is not a regular file"}},
      {"topo_directory", "topo file:@DIR@", kBadInput, {"'@DIR@' is a directory"}},
      {"topo_not_a_file_below", "topo file:@DIR@/k4n2.net/x", kBadInput, {"cannot open '@DIR@/k4n2.net/x'"}},
      {"topo_json_of_net_file", "topo json:@DIR@/k4n2.net", kBadInput, {"@DIR@/k4n2.net:1:", "invalid JSON"}},
      // ---- output files: never partial ------------------------------------------------------
      {"topo_export_unknown_format",
       "topo kary-ntree:k=4,n=2 --export xml @DIR@/out.xml",
       kBadInput,
       {"export: unknown format 'xml'"}},
      {"topo_export_no_directory",
       "topo kary-ntree:k=4,n=2 --export net @DIR@/no/such/out.net",
       kBadInput,
       {"cannot write '@DIR@/no/such/out.net'"}},
      {"topo_export_second_fails",
       "topo kary-ntree:k=4,n=2 --export json @DIR@/no/x.json --export net @DIR@/out.net",
       kBadInput,
       {"cannot write '@DIR@/no/x.json'"}},
      {"topo_export_missing_file", "topo kary-ntree:k=4,n=2 --export net", kUsage, {"--export", "'net' has no FILE"}},
      {"topo_export_same_file_twice",
       "topo kary-ntree:k=4,n=2 --export net @DIR@/out --export json @DIR@/out",
       kBadInput,
       {"output file '@DIR@/out' is named twice"}},
      {"topo_export_first_ok_second_fails",
       "topo kary-ntree:k=4,n=2 --export net @DIR@/out.net --export json @DIR@/no/x.json",
       kBadInput,
       {"cannot write '@DIR@/no/x.json'"}},
      // ---- engines that do not fit; routings of another fabric -----------------------------
      {"route_unknown_engine",
       "route kary-ntree:k=4,n=2 --engine nosuch",
       kBadInput,
       {"unknown routing engine 'nosuch'"}},
      {"route_engine_does_not_fit", "route random:switches=8 --engine dmodk", kBadInput, {"dmodk"}},
      {"route_lmc_out_of_range", "route kary-ntree:k=4,n=2 --engine dmodk --lmc 8", kUsage, {"--lmc"}},
      {"route_seed_beyond_64_bits",
       "route kary-ntree:k=4,n=2 --engine dmodk --seed 18446744073709551616",
       kUsage,
       {"--seed", "route: option 'seed': '18446744073709551616' is not an integer"}},
      {"route_seed_negative",
       "route kary-ntree:k=4,n=2 --engine dmodk --seed -1",
       kUsage,
       {"--seed", "route: seed must lie in [0, 9223372036854775807] (got -1)"}},
      {"route_export_kind_without_file",
       "route kary-ntree:k=4,n=2 --engine dmodk --export lft",
       kUsage,
       {"'lft' has no FILE"}},
      {"route_lft_of_other_fabric",
       "route file:@FX@/k4n2/ibnetdiscover.txt --engine file:@FX@/k4n3/lfts.minhop.dump.gz",
       kBadInput,
       {"@FX@/k4n3/lfts.minhop.dump.gz:14: Switch", "is not in the network"}},
      {"route_lft_port_beyond_switch",
       "route file:@FX@/k4n2/ibnetdiscover.txt --engine file:@DIR@/lft-port.dump",
       kBadInput,
       {"@DIR@/lft-port.dump:2: port 9 is beyond the 8 ports of switch"}},
      {"route_lft_unknown_node",
       "route file:@FX@/k4n2/ibnetdiscover.txt --engine file:@DIR@/lft-node.dump",
       kBadInput,
       {"@DIR@/lft-node.dump:2: Channel Adapter 'nobody'", "is not in the network"}},
      {"route_lft_header_beyond_32_bits",
       "route file:@FX@/k4n2/ibnetdiscover.txt --engine file:@DIR@/lft-header.dump",
       kBadInput,
       {"@DIR@/lft-header.dump:1: switch header range [0-4294967295]"}},
      {"route_lft_truncated",
       "route file:@FX@/k4n2/ibnetdiscover.txt --engine file:@DIR@/lft-truncated.dump",
       kBadInput,
       {"@DIR@/lft-truncated.dump:"}},
      {"route_lft_missing",
       "route file:@FX@/k4n2/ibnetdiscover.txt --engine file:@DIR@/missing.dump",
       kBadInput,
       {"cannot open '@DIR@/missing.dump'"}},
      {"route_lft_device",
       "route file:@FX@/k4n2/ibnetdiscover.txt --engine file:/dev/zero",
       kBadInput,
       {"'/dev/zero' is not a regular file"}},
      {"route_export_unknown_kind",
       "route kary-ntree:k=4,n=2 --engine dmodk --export csv @DIR@/out.csv",
       kBadInput,
       {"export: unknown kind 'csv'"}},
      {"route_export_registers_of_other_engine",
       "route kary-ntree:k=4,n=2 --engine dmodk --export ir @DIR@/out.ir --export lft @DIR@/out.dump",
       kBadInput,
       {"export ir: the IR registers describe ftree-adaptive"}},
      {"route_export_no_directory",
       "route kary-ntree:k=4,n=2 --engine dmodk --export lft @DIR@/no/out.dump",
       kBadInput,
       {"cannot write '@DIR@/no/out.dump'"}},
      // ---- verify: SL files of another fabric, numbers beyond their type --------------------
      {"verify_sl_beyond_32_bits",
       "verify file:@FX@/k4n2/ibnetdiscover.txt --engine file:@FX@/k4n2/lfts.lash.dump --sl @DIR@/sl-huge.txt",
       kBadInput,
       {"@DIR@/sl-huge.txt:2: SL 4294967297 is out of range 0..15"}},
      {"verify_sl_out_of_range",
       "verify file:@FX@/k4n2/ibnetdiscover.txt --engine file:@FX@/k4n2/lfts.lash.dump --sl @DIR@/sl-16.txt",
       kBadInput,
       {"@DIR@/sl-16.txt:1: SL 16 is out of range 0..15"}},
      {"verify_sl_unknown_lid",
       "verify file:@FX@/k4n2/ibnetdiscover.txt --engine file:@FX@/k4n2/lfts.lash.dump --sl @DIR@/sl-lid.txt",
       kBadInput,
       {"@DIR@/sl-lid.txt:1: dlid 999 is not a LID of the routing"}},
      {"verify_sl_of_other_fabric",
       "verify file:@FX@/k4n2/ibnetdiscover.txt --engine file:@FX@/k4n2/lfts.lash.dump --sl "
       "@FX@/k4n3/pathsl.lash.txt",
       kBadInput,
       {"@FX@/k4n3/pathsl.lash.txt:", "is not a LID of the routing"}},
      {"verify_sl_empty",
       "verify file:@FX@/k4n2/ibnetdiscover.txt --engine file:@FX@/k4n2/lfts.lash.dump --sl @DIR@/sl-empty.txt",
       kBadInput,
       {"@DIR@/sl-empty.txt: no SL for pair"}},
      {"verify_sl_missing",
       "verify file:@FX@/k4n2/ibnetdiscover.txt --engine file:@FX@/k4n2/lfts.lash.dump --sl @DIR@/missing.txt",
       kBadInput,
       {"cannot open '@DIR@/missing.txt'"}},
      {"verify_sl_device",
       "verify file:@FX@/k4n2/ibnetdiscover.txt --engine file:@FX@/k4n2/lfts.lash.dump --sl /dev/urandom",
       kBadInput,
       {"'/dev/urandom' is not a regular file"}},
      {"verify_disconnected_fabric",
       "verify kary-ntree:k=4,n=2+remove-switches=kt-s1-0.kt-s1-1.kt-s1-2.kt-s1-3 --engine "
       "file:@FX@/k4n2/lfts.lash.dump",
       kBadInput,
       {"lfts.lash.dump:"}},
      {"verify_lmc_beyond_type", "verify kary-ntree:k=4,n=2 --engine minhop --lmc 4294967297", kUsage, {"--lmc"}},
      {"verify_examples_negative",
       "verify kary-ntree:k=4,n=2 --engine minhop --examples -1",
       kUsage,
       {"--examples", "verify: examples must lie in [0, 1000000] (got -1)"}},
      {"verify_disconnected_fabric_engine",
       "verify kary-ntree:k=4,n=2+remove-switches=kt-s1-0.kt-s1-1.kt-s1-2.kt-s1-3 --engine minhop",
       kBadInput,
       {"disconnected"}},
      // ---- analyze: conflicting flags, patterns --------------------------------------------
      {"analyze_pattern_without_metric",
       "analyze kary-ntree:k=4,n=2 --engine dmodk --metric worst --pattern shift:s=1",
       kBadInput,
       {"--pattern is only used by --metric pattern"}},
      {"analyze_metric_without_pattern",
       "analyze kary-ntree:k=4,n=2 --engine dmodk --metric pattern",
       kBadInput,
       {"--metric pattern needs --pattern"}},
      {"analyze_export_loads_of_worst",
       "analyze kary-ntree:k=4,n=2 --engine dmodk --metric worst --export-loads @DIR@/loads.csv",
       kBadInput,
       {"--export-loads needs --metric pattern or --metric stages"}},
      {"analyze_unknown_metric", "analyze kary-ntree:k=4,n=2 --engine dmodk --metric best", kUsage, {"--metric"}},
      {"analyze_negative_threads", "analyze kary-ntree:k=4,n=2 --engine dmodk --threads -1", kUsage, {"--threads"}},
      {"analyze_threads_beyond_int",
       "analyze kary-ntree:k=4,n=2 --engine dmodk --threads 4294967297",
       kUsage,
       {"--threads"}},
      {"analyze_zero_max_samples",
       "analyze kary-ntree:k=4,n=2 --engine dmodk --metric abb --max-samples 0",
       kUsage,
       {"--max-samples", "analyze: max-samples must lie in [2, 9223372036854775807] (got 0)"}},
      {"analyze_negative_precision",
       "analyze kary-ntree:k=4,n=2 --engine dmodk --metric abb --precision -1",
       kUsage,
       {"--precision", "analyze: precision must lie in (0, inf) (got -1)"}},
      {"analyze_nan_precision",
       "analyze kary-ntree:k=4,n=2 --engine dmodk --metric abb --precision nan",
       kUsage,
       {"--precision", "analyze: precision must lie in (0, inf) (got nan)"}},
      {"analyze_pattern_file_bad_index",
       "analyze file:@FX@/k4n2/ibnetdiscover.txt --engine dmodk --metric pattern --pattern file:@DIR@/bad.pattern",
       kBadInput,
       {"@DIR@/bad.pattern:3: terminal index 99 out of range (the fabric has 16 terminals)"}},
      {"analyze_pattern_file_self",
       "analyze kary-ntree:k=4,n=2 --engine dmodk --metric pattern --pattern file:@DIR@/self.pattern "
       "--export-loads @DIR@/loads.csv",
       kBadInput,
       {"@DIR@/self.pattern:1:", "sends to itself"}},
      {"analyze_pattern_file_missing",
       "analyze kary-ntree:k=4,n=2 --engine dmodk --metric pattern --pattern file:@DIR@/missing.pattern",
       kBadInput,
       {"cannot open '@DIR@/missing.pattern'"}},
      {"analyze_pattern_impossible",
       "analyze kary-ntree:k=4,n=2 --engine dmodk --metric pattern --pattern shift:s=16",
       kBadInput,
       {"shift"}},
      {"analyze_export_loads_no_directory",
       "analyze kary-ntree:k=4,n=2 --engine dmodk --metric pattern --pattern shift:s=1 --export-loads @DIR@/no/l.csv",
       kBadInput,
       {"cannot write '@DIR@/no/l.csv'"}},
      // ---- schedule ---------------------------------------------------------------------------
      {"schedule_not_a_fat_tree",
       "schedule random:switches=8 --scheduler level-wise",
       kBadInput,
       {"circuit scheduling needs a fat-tree"}},
      {"schedule_zero_permutations",
       "schedule ft:l=2,m=4,w=4 --scheduler level-wise --permutations 0",
       kUsage,
       {"--permutations"}},
      {"schedule_permutations_beyond_64_bits",
       "schedule ft:l=2,m=4,w=4 --scheduler level-wise --permutations 99999999999999999999",
       kUsage,
       {"--permutations"}},
      {"schedule_unknown_scheduler",
       "schedule ft:l=2,m=4,w=4 --scheduler nosuch",
       kBadInput,
       {"unknown scheduler 'nosuch'"}},
      {"schedule_export_unknown_kind",
       "schedule ft:l=2,m=4,w=4 --scheduler level-wise --export xml @DIR@/x.xml",
       kBadInput,
       {"--export: unknown kind 'xml'"}},
      {"schedule_export_no_directory",
       "schedule ft:l=2,m=4,w=4 --scheduler level-wise --export paths @DIR@/no/p.txt",
       kBadInput,
       {"cannot write '@DIR@/no/p.txt'"}},
      {"simulate_load_beyond_one",
       "simulate kary-ntree:k=2,n=2 --engine dmodk --load 2",
       kUsage,
       {"simulate: load must lie in (0, 1] (got 2)"}},
      {"simulate_too_few_vcs",
       "simulate random:switches=16,seed=1 --engine lash --vcs 1",
       kBadInput,
       {"--vcs 1: the routing has"}},
      {"simulate_buffers_too_large",
       "simulate kary-ntree:k=2,n=2 --engine dmodk --vcs 64 --buffer-packets 1024",
       kBadInput,
       {"--vcs 64 x --buffer-packets 1024: at most 65535 packets per port"}},
      {"simulate_unknown_pattern",
       "simulate kary-ntree:k=2,n=2 --engine dmodk --pattern nosuch",
       kBadInput,
       {"nosuch"}},
      {"simulate_bad_trace",
       "simulate kary-ntree:k=2,n=2 --engine dmodk --trace @DIR@/missing.csv",
       kBadInput,
       {"cannot read trace '@DIR@/missing.csv'"}},
      {"simulate_load_beside_a_trace",
       "simulate kary-ntree:k=2,n=2 --engine dmodk --trace-generate io:storage=1,clients=2 --load 0.3",
       kBadInput,
       {"--load does not apply to a trace run"}},
      {"simulate_compression_without_a_trace",
       "simulate kary-ntree:k=2,n=2 --engine dmodk --compression 5",
       kBadInput,
       {"--compression applies only to a trace run"}},
      {"simulate_bad_loads",
       "simulate kary-ntree:k=2,n=2 --engine dmodk --loads 0.5:0.1:0.1",
       kBadInput,
       {"--loads '0.5:0.1:0.1'"}},
      {"simulate_in_order_on_threads",
       "simulate kary-ntree:k=2,n=2 --engine dmodk --in-order --threads 2",
       kBadInput,
       {"--threads: in-order delivery runs on one thread"}},
      {"simulate_routing_loop_trace",
       "simulate kary-ntree:k=2,n=2 --engine file:@DIR@/lft-loop.dump --trace @DIR@/loop-trace.csv "
       "--export-utilization @DIR@/u.csv",
       kBadInput,
       {"the routing loops: a packet from terminal 'kt-h0' to 'kt-h2'"}},
      {"simulate_routing_loop_load",
       "simulate kary-ntree:k=2,n=2 --engine file:@DIR@/lft-loop.dump --load 0.05 --threads 2",
       kBadInput,
       {"the routing loops: a packet from terminal 'kt-h"}},
      {"simulate_unwritable_export",
       "simulate kary-ntree:k=2,n=2 --engine dmodk --cycles 100 --export-utilization @DIR@/no/u.csv",
       kBadInput,
       {"cannot write '@DIR@/no/u.csv'"}},
      // ---- usage ----------------------------------------------------------------------------
      // compare's values are checked by its request rows (request/compare_request.h) while
      // parsing: a usage error with the library's message.
      {"compare_no_vls",
       "compare kary-ntree:k=2,n=2 --engine dmodk --vls 0 --output @DIR@/report",
       kUsage,
       {"--vls: compare: vls must lie in [1, 15] (got 0)"}},
      {"compare_too_many_vls",
       "compare kary-ntree:k=2,n=2 --engine dmodk --vls 16 --output @DIR@/report",
       kUsage,
       {"--vls: compare: vls must lie in [1, 15] (got 16)"}},
      {"compare_vls_not_a_number", "compare --engine dmodk --vls many --output @DIR@/report", kUsage, {"--vls"}},
      {"compare_simulate_steps_zero",
       "compare --engine dmodk --simulate-steps 0 --output @DIR@/report",
       kUsage,
       {"--simulate-steps"}},
      {"compare_unknown_format", "compare --engine dmodk --format xml --output @DIR@/report", kUsage, {"--format"}},
      {"no_subcommand", "", kUsage, {"subcommand"}},
      {"unknown_subcommand", "teleport kary-ntree:k=4,n=2", kUsage, {"unknown subcommand 'teleport'"}},
      {"list_extra_argument", "list everything", kUsage, {"everything"}},
      {"topo_missing_spec", "topo", kUsage, {"spec"}},
      {"verify_missing_engine", "verify kary-ntree:k=4,n=2", kUsage, {"--engine"}},
      {"topo_unknown_format", "topo kary-ntree:k=4,n=2 --format yaml", kUsage, {"--format"}},
  };
  return rows;
}

class BadInputMatrix : public ::testing::TestWithParam<BadInput> {};

TEST_P(BadInputMatrix, ExitCodeMessageAndNoOutputFile) {
  const BadInput& row = GetParam();
  if (row.needsNonRoot && ::geteuid() == 0) GTEST_SKIP() << "root reads files without read permission";
  Inputs inputs;
  const auto result = runRoutelab(substitute(row.arguments, inputs.dir()));
  EXPECT_EQ(result.exitCode, row.exitCode) << row.arguments << "\nstderr: " << result.err << "\nstdout: " << result.out;
  if (row.exitCode == kBadInput) {
    EXPECT_EQ(result.err.rfind("routelab: error: ", 0), 0u) << result.err;
    EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1) << "one line: " << result.err;
  }
  EXPECT_NE(result.err.find_first_not_of(" \n"), std::string::npos) << "empty stderr";
  for (const char* mention : row.mentions) {
    const std::string expected = substitute(mention, inputs.dir());
    EXPECT_NE(result.err.find(expected), std::string::npos) << "stderr lacks '" << expected << "': " << result.err;
  }
  // Nothing written next to the inputs: no output file, no temporary file.
  EXPECT_EQ(inputs.listing(), inputs.before());
}

INSTANTIATE_TEST_SUITE_P(EverySubcommand, BadInputMatrix, ::testing::ValuesIn(matrix()),
                         [](const auto& parameter) { return std::string(parameter.param.name); });

}  // namespace
