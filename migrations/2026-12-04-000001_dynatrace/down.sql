DROP TABLE "relay_dynatrace_config";
DROP TABLE "dynatrace_problem_notes";
DROP TABLE "dynatrace_problem_states";
DROP TABLE "dynatrace_problem_sync";
DROP TABLE "dynatrace_problems";
