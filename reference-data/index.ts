// `faultline import`: reference data (organizations, power lines, groups, devices, users, integrations).
export { importReferenceData, planImport, type ImportOptions, type ImportPlan, type ImportProgress } from './import.js';
export { readImportFile } from './read-file.js';
export { validateImport, parseImport, type ValidationResult, type ParsedImport } from './validate.js';
export { ImportError, IMPORT_ERRORS, formatProblems, type Problem, type ImportErrorCode } from './errors.js';
export { KINDS, type ImportCounts, type ImportData, type Kind, type KindCounts } from './model.js';
