#include "topology/topology.hpp"

#include <hwloc.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <filesystem>
#include <map>
#include <sstream>

#include "base/echo_text.hpp"
#include "base/errors.hpp"
#include "base/small_file.hpp"
#include "topology/node_info.hpp"

namespace hetprobe {

std::optional<PciAddress> PciAddress::parse(const std::string& text) {
  PciAddress a;
  char tail = 0;
  if (std::sscanf(text.c_str(), "%x:%x:%x.%x%c", &a.domain, &a.bus, &a.dev, &a.func, &tail) == 4) return a;
  return std::nullopt;
}

std::string PciAddress::str() const {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%04x:%02x:%02x.%x", domain, bus, dev, func);
  return buf;
}

namespace {

// An hwloc bitmap that frees itself.
struct Bitmap {
  hwloc_bitmap_t b = hwloc_bitmap_alloc();
  Bitmap() = default;
  Bitmap(const Bitmap&) = delete;
  Bitmap& operator=(const Bitmap&) = delete;
  ~Bitmap() { hwloc_bitmap_free(b); }
  std::string list() const {
    char* s = nullptr;
    hwloc_bitmap_list_asprintf(&s, b);
    std::string out = s ? s : "";
    std::free(s);
    return out;
  }
};

std::vector<int> indexes(hwloc_const_bitmap_t set) {
  std::vector<int> out;
  for (int i = hwloc_bitmap_first(set); i >= 0; i = hwloc_bitmap_next(set, i)) out.push_back(i);
  return out;
}

std::string list_of(hwloc_const_bitmap_t set) {
  Bitmap copy;
  hwloc_bitmap_copy(copy.b, set);
  return copy.list();
}

std::string read_line(const std::string& path) { return valid_utf8(read_first_line(path).value_or("")); }

// -1 where the file is missing or holds no whole number.
long read_long(const std::string& path) {
  const std::string s = read_line(path);
  long value = -1;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  return ec == std::errc() && end == s.data() + s.size() ? value : -1;
}

const char* kind_of(const hwloc_obj_t pci) {
  const unsigned cls = pci->attr->pcidev.class_id;
  if (cls == 0x0300 || cls == 0x0302 || cls == 0x0380) return "gpu";
  if (cls == 0x0200 || cls == 0x0207) return "nic";
  return nullptr;
}

std::string size_text(std::uint64_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024 && u < 4) v /= 1024, ++u;
  char buf[32];
  std::snprintf(buf, sizeof buf, v == static_cast<double>(static_cast<long long>(v)) ? "%.0f %s" : "%.1f %s", v,
                units[u]);
  return buf;
}

std::string joined(const std::vector<int>& v) {
  std::string s;
  for (int x : v) {
    if (!s.empty()) s += ',';  // two appends: GCC 12 warns -Wrestrict (falsely) on "," + std::string
    s += std::to_string(x);
  }
  return s;
}

// What `hetprobe topo` says of a GPU's sysfs link: read at idle, where a GPU
// may have lowered its link speed, so below max is no verdict here.
std::string idle_link_line(const PciLink& link) {
  if (!link.read()) return "PCIe link (sysfs): not read: " + link.problem;
  return "PCIe link (sysfs, idle read): " + link.text() +
         (link.below_max.value_or(false) ? ", below max (an idle GPU may lower its link speed)" : "");
}

}  // namespace

struct Topology::Impl {
  hwloc_topology_t topo = nullptr;
  ~Impl() {
    if (topo) hwloc_topology_destroy(topo);
  }

  hwloc_obj_t find_pci(const PciAddress& a) const {
    hwloc_obj_t o = hwloc_get_pcidev_by_busid(topo, a.domain, a.bus, a.dev, a.func);
    if (o == nullptr) throw usage_error("hwloc does not know the PCI device " + a.str() + " on this node");
    return o;
  }

  // Where a PCI device attaches to the CPU side of the tree.
  hwloc_obj_t locality(hwloc_obj_t pci) const { return hwloc_get_non_io_ancestor_obj(topo, pci); }

  void parse_cpuset(const std::string& list, Bitmap& out) const {
    if (list.empty() || hwloc_bitmap_list_sscanf(out.b, list.c_str()) != 0 || hwloc_bitmap_iszero(out.b))
      throw usage_error("cpu list '" + list + "' is not a list like 0-3,8");
    if (!hwloc_bitmap_isincluded(out.b, hwloc_topology_get_topology_cpuset(topo)))
      throw usage_error("cpu list '" + list + "' names CPUs this node does not have (it has " +
                        list_of(hwloc_topology_get_topology_cpuset(topo)) + ")");
  }
};

Topology::Topology(std::unique_ptr<Impl> impl, std::string source, bool live)
    : impl_(std::move(impl)), source_(std::move(source)), live_(live) {}
Topology::Topology(Topology&&) noexcept = default;
Topology& Topology::operator=(Topology&&) noexcept = default;
Topology::~Topology() = default;

namespace {
std::unique_ptr<Topology::Impl> init_topology() {
  auto impl = std::make_unique<Topology::Impl>();
  if (hwloc_topology_init(&impl->topo) != 0) throw Error(ErrorKind::check, "hwloc_topology_init failed");
  hwloc_topology_set_io_types_filter(impl->topo, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
  hwloc_topology_set_icache_types_filter(impl->topo, HWLOC_TYPE_FILTER_KEEP_ALL);
  return impl;
}
}  // namespace

Topology Topology::discover() {
  auto impl = init_topology();
  if (hwloc_topology_load(impl->topo) != 0)
    throw Error(ErrorKind::check, "hwloc could not read this machine's topology");
  return Topology(std::move(impl), "this machine (hwloc " + std::string(HWLOC_VERSION) + ")", true);
}

Topology Topology::from_xml(const std::string& path) {
  if (!std::filesystem::is_regular_file(path)) throw usage_error("--topology-file " + path + ": no such file");
  auto impl = init_topology();
  if (hwloc_topology_set_xml(impl->topo, path.c_str()) != 0 || hwloc_topology_load(impl->topo) != 0)
    throw usage_error("--topology-file " + path + ": not an hwloc XML topology");
  return Topology(std::move(impl), path, false);
}

NodeTopology Topology::describe() const {
  hwloc_topology_t t = impl_->topo;
  NodeTopology n;
  n.source = source_;
  n.packages = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PACKAGE);
  n.numa_nodes = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_NUMANODE);
  n.cores = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_CORE);
  n.pus = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PU);
  for (int i = 0; i < n.numa_nodes; ++i) {
    hwloc_obj_t o = hwloc_get_obj_by_type(t, HWLOC_OBJ_NUMANODE, static_cast<unsigned>(i));
    n.numa.push_back({static_cast<int>(o->os_index), o->attr->numanode.local_memory, list_of(o->cpuset)});
  }
  const std::pair<hwloc_obj_type_t, const char*> caches[] = {{HWLOC_OBJ_L1CACHE, "L1d"},
                                                             {HWLOC_OBJ_L1ICACHE, "L1i"},
                                                             {HWLOC_OBJ_L2CACHE, "L2"},
                                                             {HWLOC_OBJ_L3CACHE, "L3"}};
  for (auto [type, name] : caches) {
    const int count = hwloc_get_nbobjs_by_type(t, type);
    if (count > 0) n.caches.push_back({name, hwloc_get_obj_by_type(t, type, 0)->attr->cache.size, count});
  }
  for (hwloc_obj_t pci = nullptr; (pci = hwloc_get_next_pcidev(t, pci)) != nullptr;) {
    const char* kind = kind_of(pci);
    if (kind == nullptr) continue;
    PciDevice d;
    d.kind = kind;
    const auto& a = pci->attr->pcidev;
    d.address = {a.domain, a.bus, a.dev, a.func};
    d.vendor_id = a.vendor_id;
    d.device_id = a.device_id;
    d.class_id = a.class_id;
    d.link_gbps = a.linkspeed;
    if (const char* v = hwloc_obj_get_info_by_name(pci, "PCIVendor")) d.vendor = v;
    if (const char* m = hwloc_obj_get_info_by_name(pci, "PCIDevice")) d.model = m;
    for (hwloc_obj_t os = pci->io_first_child; os != nullptr; os = os->next_sibling)
      if (os->type == HWLOC_OBJ_OS_DEVICE && os->name) d.os_devices.push_back(os->name);
    const hwloc_obj_t near = impl_->locality(pci);
    d.cpuset = list_of(near->cpuset);
    d.numa_nodes = indexes(near->nodeset);
    (d.kind == "gpu" ? n.gpus : n.nics).push_back(d);
  }
  // /sys and /proc describe the machine this runs on, not an XML file's.
  if (live_) n.memory = read_memory_settings();
  return n;
}

std::string Topology::cpuset_near(const PciAddress& device) const {
  return list_of(impl_->locality(impl_->find_pci(device))->cpuset);
}

std::string Topology::cpuset_far(const PciAddress& device) const {
  const hwloc_obj_t near = impl_->locality(impl_->find_pci(device));
  Bitmap far;
  for (hwloc_obj_t numa = nullptr; (numa = hwloc_get_next_obj_by_type(impl_->topo, HWLOC_OBJ_NUMANODE, numa));)
    if (!hwloc_bitmap_isset(near->nodeset, numa->os_index)) hwloc_bitmap_or(far.b, far.b, numa->cpuset);
  if (hwloc_bitmap_iszero(far.b))
    throw usage_error("--bind far-gpu: every NUMA node of this node is near " + device.str() +
                      " (there is no far side to bind to)");
  return far.list();
}

std::string Topology::intersect_or(const std::string& cpuset, const std::string& narrower) const {
  Bitmap a, b;
  impl_->parse_cpuset(cpuset, a);
  if (narrower.empty() || hwloc_bitmap_list_sscanf(b.b, narrower.c_str()) != 0) return cpuset;
  hwloc_bitmap_and(b.b, a.b, b.b);
  return hwloc_bitmap_iszero(b.b) ? cpuset : b.list();
}

std::vector<int> Topology::numa_nodes_of(const std::string& cpuset) const {
  Bitmap cpus;
  impl_->parse_cpuset(cpuset, cpus);
  Bitmap nodes;
  hwloc_cpuset_to_nodeset(impl_->topo, cpus.b, nodes.b);
  return indexes(nodes.b);
}

std::vector<int> Topology::cpus_of(const std::string& cpuset) const {
  Bitmap cpus;
  impl_->parse_cpuset(cpuset, cpus);
  return indexes(cpus.b);
}

std::string Topology::all_cpus() const { return list_of(hwloc_topology_get_topology_cpuset(impl_->topo)); }

std::string Topology::cpuset_of_numa(const std::vector<int>& nodes) const {
  Bitmap cpus;
  for (hwloc_obj_t numa = nullptr; (numa = hwloc_get_next_obj_by_type(impl_->topo, HWLOC_OBJ_NUMANODE, numa));)
    if (std::find(nodes.begin(), nodes.end(), static_cast<int>(numa->os_index)) != nodes.end())
      hwloc_bitmap_or(cpus.b, cpus.b, numa->cpuset);
  return cpus.list();
}

std::string Topology::cpuset_minus(const std::string& cpuset, const std::string& minus) const {
  Bitmap a, b;
  impl_->parse_cpuset(cpuset, a);
  if (!minus.empty() && hwloc_bitmap_list_sscanf(b.b, minus.c_str()) == 0) hwloc_bitmap_andnot(a.b, a.b, b.b);
  return hwloc_bitmap_iszero(a.b) ? "" : a.list();
}

void Topology::bind_memory(const std::vector<int>& nodes) const {
  Bitmap set;
  for (int n : nodes) hwloc_bitmap_set(set.b, static_cast<unsigned>(n));
  if (hwloc_set_membind(impl_->topo, set.b, HWLOC_MEMBIND_BIND, HWLOC_MEMBIND_BYNODESET) != 0)
    throw Error(ErrorKind::check, "the OS refused to bind this thread's memory to NUMA nodes " + set.list());
}

void Topology::bind(const std::string& cpuset) const {
  Bitmap cpus;
  impl_->parse_cpuset(cpuset, cpus);
  if (hwloc_set_cpubind(impl_->topo, cpus.b, HWLOC_CPUBIND_PROCESS) != 0)
    throw Error(ErrorKind::check, "the OS refused to bind this process to cpus " + cpuset);
  Bitmap nodes;
  hwloc_cpuset_to_nodeset(impl_->topo, cpus.b, nodes.b);
  // The calling thread allocates the probe's buffers, so its policy is what counts.
  bind_memory(indexes(nodes.b));
}

void Topology::unbind(const std::string& cpuset) const noexcept {
  try {
    Bitmap cpus;
    impl_->parse_cpuset(cpuset, cpus);
    hwloc_set_cpubind(impl_->topo, cpus.b, HWLOC_CPUBIND_PROCESS);
    hwloc_set_membind(impl_->topo, hwloc_topology_get_complete_nodeset(impl_->topo), HWLOC_MEMBIND_DEFAULT,
                      HWLOC_MEMBIND_BYNODESET);
  } catch (...) {
  }
}

std::string Topology::bound_cpuset() const {
  Bitmap cpus;
  if (hwloc_get_cpubind(impl_->topo, cpus.b, HWLOC_CPUBIND_PROCESS) != 0) return "";
  return cpus.list();
}

std::vector<int> Topology::membind_nodes() const {
  Bitmap nodes;
  hwloc_membind_policy_t policy{};
  if (hwloc_get_membind(impl_->topo, nodes.b, &policy, HWLOC_MEMBIND_BYNODESET) != 0) return {};
  return indexes(nodes.b);
}

std::vector<int> Topology::memory_location(const void* p, std::size_t bytes) const {
  Bitmap nodes;
  if (hwloc_get_area_memlocation(impl_->topo, p, bytes, nodes.b, HWLOC_MEMBIND_BYNODESET) != 0) return {};
  return indexes(nodes.b);
}

MemorySettings read_memory_settings() {
  MemorySettings m;
  m.page_size_bytes = sysconf(_SC_PAGESIZE);
  m.transparent_hugepages = read_node_info().transparent_hugepages;
  m.hugepages_2m = read_long("/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages");
  m.hugepages_1g = read_long("/sys/kernel/mm/hugepages/hugepages-1048576kB/nr_hugepages");
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator("/sys/class/iommu", ec))
    m.iommu_devices.push_back(e.path().filename().string());
  std::sort(m.iommu_devices.begin(), m.iommu_devices.end());
  std::istringstream cmdline(read_line("/proc/cmdline"));
  for (std::string word; cmdline >> word;)
    if (word.find("iommu") != std::string::npos) m.iommu_cmdline += (m.iommu_cmdline.empty() ? "" : " ") + word;
  return m;
}

nlohmann::ordered_json NodeTopology::to_json() const {
  using J = nlohmann::ordered_json;
  J numa_list = J::array(), cache_list = J::array();
  for (const NumaNode& x : numa)
    numa_list.push_back({{"os_index", x.os_index}, {"memory_bytes", x.memory_bytes}, {"cpuset", x.cpuset}});
  for (const CacheLevel& c : caches)
    cache_list.push_back({{"name", c.name}, {"size_bytes", c.size_bytes}, {"count", c.count}});
  auto pci_list = [](const std::vector<PciDevice>& v) {
    J out = J::array();
    for (const PciDevice& d : v) {
      out.push_back({{"pci_bus_id", d.address.str()},
                     {"vendor_id", d.vendor_id},
                     {"device_id", d.device_id},
                     {"class_id", d.class_id},
                     {"vendor", d.vendor},
                     {"model", d.model},
                     {"os_devices", d.os_devices},
                     {"numa_nodes", d.numa_nodes},
                     {"cpuset", d.cpuset},
                     {"link_gbps", d.link_gbps > 0 ? J(d.link_gbps) : J(nullptr)}});
      if (d.sysfs_link) {
        J link{{"read_while", "idle"}};
        link.update(d.sysfs_link->to_json());
        out.back()["sysfs_link"] = link;
      }
    }
    return out;
  };
  return J{{"source", source},
           {"packages", packages},
           {"numa_nodes", numa_nodes},
           {"cores", cores},
           {"pus", pus},
           {"numa", numa_list},
           {"caches", cache_list},
           {"gpus", pci_list(gpus)},
           {"nics", pci_list(nics)},
           {"memory",
            {{"page_size_bytes", memory.page_size_bytes},
             {"transparent_hugepages", memory.transparent_hugepages},
             {"hugepages_2m", memory.hugepages_2m},
             {"hugepages_1g", memory.hugepages_1g},
             {"iommu_devices", memory.iommu_devices},
             {"iommu_cmdline", memory.iommu_cmdline}}}};
}

std::string NodeTopology::tree() const {
  std::ostringstream out;
  std::uint64_t total = 0;
  for (const NumaNode& x : numa) total += x.memory_bytes;
  out << "Machine: " << packages << " package(s), " << numa_nodes << " NUMA node(s), " << cores << " cores, " << pus
      << " PUs, " << size_text(total) << " memory  [" << source << "]\n";
  for (const NumaNode& x : numa) {
    out << "  NUMA " << x.os_index << ": " << size_text(x.memory_bytes) << ", cpus " << x.cpuset << "\n";
    for (const auto* list : {&gpus, &nics})
      for (const PciDevice& d : *list) {
        if (std::find(d.numa_nodes.begin(), d.numa_nodes.end(), x.os_index) == d.numa_nodes.end()) continue;
        char ids[32];
        std::snprintf(ids, sizeof ids, "[%04x:%04x]", d.vendor_id, d.device_id);
        out << "    " << (d.kind == "gpu" ? "GPU " : "NIC ") << d.address.str() << " " << ids;
        if (!d.model.empty()) out << " " << d.model;
        for (const std::string& os : d.os_devices) out << " " << os;
        if (d.link_gbps > 0) {
          char link[32];
          std::snprintf(link, sizeof link, ", link %.1f GB/s", d.link_gbps);
          out << link;
        }
        out << ", near cpus " << d.cpuset << (d.numa_nodes.size() > 1 ? " (NUMA " + joined(d.numa_nodes) + ")" : "")
            << "\n";
        if (d.sysfs_link) out << "      " << idle_link_line(*d.sysfs_link) << "\n";
      }
  }
  out << "  caches:";
  for (const CacheLevel& c : caches) out << " " << c.name << " " << size_text(c.size_bytes) << " x" << c.count;
  out << "\n";
  if (memory.page_size_bytes == 0) {  // from a file: /sys and /proc were not this node's
    out << "  memory settings and IOMMU: not recorded in a topology file\n";
    return out.str();
  }
  out << "  memory: page " << size_text(static_cast<std::uint64_t>(memory.page_size_bytes)) << ", THP "
      << (memory.transparent_hugepages.empty() ? "?" : memory.transparent_hugepages)
      << ", hugepages 2 MiB: " << memory.hugepages_2m << ", 1 GiB: " << memory.hugepages_1g << "\n  IOMMU: "
      << (memory.iommu_devices.empty() ? std::string("none in /sys/class/iommu")
                                       : std::to_string(memory.iommu_devices.size()) + " unit(s)")
      << (memory.iommu_cmdline.empty() ? "" : ", kernel: " + memory.iommu_cmdline) << "\n";
  return out.str();
}

}  // namespace hetprobe
