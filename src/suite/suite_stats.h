// Counts of patterns and workloads over a set of tasks: per category, per domain, model graphs vs
// single operators, and in all (`ekb list --stats`; the changelog's counts come from it). A pattern
// counts once in every group holding one of its workloads: its workloads may span domains, so the
// domains' pattern counts can add up to more than the total.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "suite/selection.h"

namespace ekb {

struct Counts {
  int patterns = 0, workloads = 0;
};

struct SuiteStats {
  Counts total;
  std::vector<std::pair<std::string, Counts>> categories;  // known_categories() order, only those with workloads
  std::vector<std::pair<std::string, Counts>> domains;     // known_domains() order, only those with workloads
  Counts graph, single;                                    // TaskKind
};

SuiteStats suite_stats(const std::vector<const Task*>& tasks);

}  // namespace ekb
