// Placeholder translation unit for a module with no sources yet.
namespace routelab::detail {
inline void emptyModuleAnchor() {}
}  // namespace routelab::detail
