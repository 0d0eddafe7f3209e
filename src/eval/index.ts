/**
 * The evaluation layer's public API: benchmark evaluation over whole splits, breakdowns with
 * intervals, aggregates over seeds, tables, plots, run-directory reading, experiments, the
 * gate-value analysis, reports and the demo.
 */

/** One episode per task, batched; the summary every evaluation starts from. */
export { evaluate, summarize, type EvalSummary, type EvaluateOptions } from "./evaluate.ts";
/** Whole-split suites (140 / 134 real ALFWorld games, 128 WebShop goals, Search-QA sets) evaluated as a run acts. */
export { evalSuite, evaluateBenchmark, evalRolloutOptions, benchmarkJson, searchDatasets, GENERATED_ALFWORLD_COUNTS, type EvalSuite, type Decoding, type BenchmarkResult } from "./benchmark.ts";
/** The paper's columns with 95% intervals (per task type + macro average, per dataset + average, score + success). */
export { breakdown, groupOf, rateEstimate, rateAverageEstimate, groupAverageEstimate, searchAverageNote, type Breakdown, type Estimate } from "./breakdown.ts";
export { selectPanel, panelHash, describePanel, type Panel } from "./panel.ts";
/** Means over training seeds with t-intervals; paired differences (over seeds, or a bootstrap over shared games). */
export { aggregate, seedEstimate, pairedDifference, pairedBootstrapDifference, clampEstimate, type Aggregate } from "./aggregate.ts";
/** Markdown Table 1 (methods × columns) and Table 2 (ablations). */
export { resultsTable, ablationTable, markdownTable, formatEstimate, benchmarkTitle } from "./tables.ts";
/** A tiny inline-SVG line plot. */
export { linePlot, niceTicks, type Series, type PlotOptions } from "./svg-plot.ts";
/** Run directories: metrics, samples with gates, checkpoints, evaluation records. */
export { readRunDir, readEvals, writeEvalRecord, metricSeries, type RunData, type EvalRecord } from "./run-data.ts";
export { isRunDir, readMetrics, readSamples, type SampleTrajectory } from "../run/run-dir.ts";
/** Experiment presets (`configs/experiments/`), the resumable runner and its results. */
export { readExperimentSpec, listExperimentNames, parseExperimentSpec, type ExperimentSpec, type ArmSpec } from "./experiment-spec.ts";
export { runExperiment, planExperiment, executeRun, armConfig, type ExperimentOptions, type RunOutcome } from "./experiment.ts";
export { readExperiment, experimentSummary, experimentMarkdown, writeExperimentResults, type ExperimentData, type ArmResults } from "./experiment-results.ts";
/** Eq. 8 measured: per-action gates vs empirical return on held-out rollouts. */
export { gateValueAnalysis, clusteredCorrelation, type GateValueReport, type GateValueOptions } from "./gate-value.ts";
/** The self-contained HTML report rendered from run directories. */
export { reportFor, renderReport, writeReport, type ReportOptions } from "./report.ts";
/** `seed demo`: stages, SEED and GRPO, evaluation, report and a three-line verdict. */
export { runDemo, compareArms, verdictLines, type DemoOptions, type DemoResult } from "./demo.ts";
