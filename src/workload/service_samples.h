// A service distribution as samples: a CSV whose `duration` column holds jobs' total service (Tiresias'
// yarn-gput1000.csv: GPU-seconds), read by the Gittins orders (policy/order/gittins.cpp) and --compat tiresias.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

namespace rm {

// The samples in file order, each > 0 (`whole`: positive integers, as Tiresias' int() reads them); at least
// `min_samples`. Throws InputError naming the file, line and column.
std::vector<double> read_service_samples(const std::string& path, bool whole, std::size_t min_samples = 1);

}  // namespace rm
