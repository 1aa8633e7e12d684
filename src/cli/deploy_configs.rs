//! The engine configurations in `deploy/` are valid and run real commands: the YAML files
//! parse, their shard counts agree (matrix, Indexed Job completions, Slurm array, SHARDS),
//! the merge waits for the shards, the shell scripts pass `sh -n`, and every `lockcheck`
//! command they run parses with the binary's own argument definitions (so a renamed flag or
//! subcommand fails here).

use super::{Cli, Command};
use clap::Parser;
use std::path::{Path, PathBuf};
use yaml_rust2::{Yaml, YamlLoader};

fn yaml(path: &str) -> Vec<Yaml> {
    let text = std::fs::read_to_string(repo(path)).unwrap();
    YamlLoader::load_from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Every string in a YAML document, depth first.
fn strings(doc: &Yaml, out: &mut Vec<String>) {
    match doc {
        Yaml::String(s) => out.push(s.clone()),
        Yaml::Array(items) => items.iter().for_each(|i| strings(i, out)),
        Yaml::Hash(map) => map.values().for_each(|v| strings(v, out)),
        _ => {}
    }
}

/// The `lockcheck` commands in `texts` (from `lockcheck` to the end of the line), with the
/// configurations' variables given sample values, parsed by the binary's own definitions.
fn commands(texts: &[String]) -> Vec<Command> {
    let samples = [
        ("${{ matrix.shard }}", "1"),
        ("\"$SCENARIO\"", "seed-003-defended"),
        ("\"$SHARDS\"", "4"),
        ("\"$JOB_COMPLETION_INDEX\"", "1"),
        ("\"$SLURM_ARRAY_TASK_ID\"", "1"),
        ("$PARTIAL", "--partial"),
        ("$MERGE_FLAGS", "--partial"),
    ];
    let mut found = Vec::new();
    for text in texts {
        for line in text.lines() {
            let Some(at) = line
                .find("lockcheck check")
                .or(line.find("lockcheck merge"))
            else {
                continue;
            };
            let mut command = line[at..].to_string();
            for (var, value) in samples {
                command = command.replace(var, value);
            }
            assert!(
                !command.contains('$'),
                "a variable without a sample: {command}"
            );
            let words = command.split_whitespace();
            let cli = Cli::try_parse_from(words)
                .unwrap_or_else(|e| panic!("`{command}` does not parse:\n{e}"));
            found.push(cli.command);
        }
    }
    found
}

/// One shard check of `shards` shards and one merge among `commands`.
fn assert_shard_and_merge(what: &str, commands: &[Command], shards: u32) {
    let checks: Vec<_> = commands
        .iter()
        .filter_map(|c| match c {
            Command::Check(a) => Some(a),
            _ => None,
        })
        .collect();
    assert_eq!(checks.len(), 1, "{what}: one shard command");
    assert_eq!(checks[0].shards, Some(shards), "{what}: --shards");
    assert_eq!(
        checks[0].shard,
        Some(1),
        "{what}: --shard from the engine's index"
    );
    let merges = commands
        .iter()
        .filter(|c| matches!(c, Command::Merge(_)))
        .count();
    assert_eq!(merges, 1, "{what}: one merge command");
}

fn sh_syntax_ok(path: &str) {
    let out = std::process::Command::new("sh")
        .arg("-n")
        .arg(repo(path))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{path}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn the_github_actions_workflow_has_a_shard_matrix_and_a_merge_job() {
    let docs = yaml("deploy/github/lockcheck-shards.yml");
    let wf = &docs[0];
    let shards = wf["env"]["SHARDS"].as_i64().expect("env.SHARDS") as u32;
    let matrix = wf["jobs"]["shard"]["strategy"]["matrix"]["shard"]
        .as_vec()
        .expect("a shard matrix");
    let indices: Vec<i64> = matrix.iter().filter_map(Yaml::as_i64).collect();
    assert_eq!(indices, (0..shards as i64).collect::<Vec<_>>());
    assert_eq!(wf["jobs"]["merge"]["needs"].as_str(), Some("shard"));
    assert_eq!(wf["jobs"]["merge"]["if"].as_str(), Some("always()"));
    let mut texts = Vec::new();
    strings(wf, &mut texts);
    assert_shard_and_merge("github", &commands(&texts), shards);
}

#[test]
fn the_kubernetes_indexed_job_runs_every_shard_then_a_merge() {
    let shard_docs = yaml("deploy/kubernetes/shards-job.yaml");
    let job = shard_docs
        .iter()
        .find(|d| d["kind"].as_str() == Some("Job"))
        .expect("a Job");
    let spec = &job["spec"];
    assert_eq!(spec["completionMode"].as_str(), Some("Indexed"));
    let container = &spec["template"]["spec"]["containers"][0];
    let shards_env = container["env"]
        .as_vec()
        .unwrap()
        .iter()
        .find(|e| e["name"].as_str() == Some("SHARDS"))
        .and_then(|e| e["value"].as_str())
        .expect("SHARDS in the container's environment");
    let shards: u32 = shards_env.parse().unwrap();
    assert_eq!(spec["completions"].as_i64(), Some(shards as i64));
    assert_eq!(spec["parallelism"].as_i64(), Some(shards as i64));
    let rule = &spec["podFailurePolicy"]["rules"][0];
    assert_eq!(rule["action"].as_str(), Some("FailJob"));
    assert_eq!(rule["onExitCodes"]["values"][0].as_i64(), Some(1));
    let merge_docs = yaml("deploy/kubernetes/merge-job.yaml");
    let mut texts = Vec::new();
    shard_docs
        .iter()
        .chain(&merge_docs)
        .for_each(|d| strings(d, &mut texts));
    assert_shard_and_merge("kubernetes", &commands(&texts), shards);
    let run = std::fs::read_to_string(repo("deploy/kubernetes/run.sh")).unwrap();
    assert!(run.contains("lockcheck-shards") && run.contains("merge-job.yaml"));
    sh_syntax_ok("deploy/kubernetes/run.sh");
}

#[test]
fn the_slurm_array_runs_every_shard_then_a_merge_after_it() {
    let shards_script = std::fs::read_to_string(repo("deploy/slurm/shards.sbatch")).unwrap();
    let merge_script = std::fs::read_to_string(repo("deploy/slurm/merge.sbatch")).unwrap();
    let array = shards_script
        .lines()
        .find_map(|l| l.strip_prefix("#SBATCH --array=0-"))
        .expect("an array 0-K");
    let shards: u32 = array.trim().parse::<u32>().unwrap() + 1;
    for script in [&shards_script, &merge_script] {
        assert!(
            script.contains(&format!("\nSHARDS={shards}\n")),
            "SHARDS={shards}"
        );
    }
    let texts = [shards_script, merge_script];
    assert_shard_and_merge("slurm", &commands(&texts), shards);
    let submit = std::fs::read_to_string(repo("deploy/slurm/submit.sh")).unwrap();
    assert!(submit.contains("--dependency=\"afterany:$array\""));
    for script in ["shards.sbatch", "merge.sbatch", "submit.sh"] {
        sh_syntax_ok(&format!("deploy/slurm/{script}"));
    }
}

fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}
