// How test/run.ts starts one suite file, in one place so that test/runner checks the same command line.
// hook-errors.ts prints the error of a suite's test.before or test.after, which uvu itself drops;
// negative-timeout.ts drops kafkajs's harmless TimeoutNegativeWarning, which every suite talking to Kafka printed.
export const suiteArgs = (file: string): string[] => ['--import', 'tsx', '--import', './test/helpers/hook-errors.ts', '--import', './stages/runtime/transport/kafka/negative-timeout.ts', file];
