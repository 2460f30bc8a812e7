//! A throwaway PostgreSQL cluster for the tests of one test binary: `initdb` into a temporary
//! directory, `pg_ctl start` on a unix socket in it (no TCP port), and removal when the test
//! binary exits, by a watchdog that waits for the end of a pipe only the test binary holds.
//!
//! The server binaries come from `DYNALEASE_PG_BIN`, or the newest `/usr/lib/postgresql/*/bin`,
//! or `pg_config --bindir`. They refuse to run as root, so as root they run as the user
//! `postgres`. Without them, a test that needs the cluster fails and says what to install.

use std::path::{Path, PathBuf};
use std::process::{ChildStdin, Command, Stdio};
use std::sync::{Mutex, OnceLock};

/// A running cluster: its socket directory, port number and superuser.
#[derive(Debug)]
pub struct Cluster {
    pub socket_dir: PathBuf,
    pub port: u16,
    pub user: &'static str,
    bin: PathBuf,
    data: PathBuf,
    as_postgres: bool,
    /// Whether commits wait for the disk (PostgreSQL's defaults), or not (`fsync=off`).
    durable: bool,
    /// Closed when the test binary exits, which stops the cluster and removes its directory.
    _watchdog: Mutex<ChildStdin>,
}

const PORT: u16 = 5432;
const INSTALL: &str = "install the PostgreSQL server package (Debian: `apt-get install postgresql-15`, or \
                       `postgresql`), or set DYNALEASE_PG_BIN to the directory of initdb and pg_ctl";

/// The cluster of this test binary, started on first use, with `fsync=off`: the tests need
/// no durability.
pub fn cluster() -> &'static Cluster {
    static CLUSTER: OnceLock<Cluster> = OnceLock::new();
    CLUSTER.get_or_init(|| start(false))
}

/// A cluster with PostgreSQL's default durability (every commit waits for the disk), for
/// benchmarks.
pub fn durable_cluster() -> &'static Cluster {
    static CLUSTER: OnceLock<Cluster> = OnceLock::new();
    CLUSTER.get_or_init(|| start(true))
}

impl Cluster {
    /// A tokio-postgres configuration for the superuser's database on the socket.
    pub fn config(&self) -> dynalease::tokio_postgres::Config {
        let mut config = dynalease::tokio_postgres::Config::new();
        config
            .host_path(&self.socket_dir)
            .port(self.port)
            .user(self.user)
            .dbname("postgres")
            .ssl_mode(dynalease::tokio_postgres::config::SslMode::Disable);
        config
    }

    /// The connection URL of the superuser's database, for examples that take one.
    pub fn url(&self) -> String {
        format!("host={} port={} user={} dbname=postgres", self.socket_dir.display(), self.port, self.user)
    }

    /// The path of the socket file itself.
    pub fn socket(&self) -> PathBuf {
        self.socket_dir.join(format!(".s.PGSQL.{}", self.port))
    }

    /// Stops the server (fast shutdown: connections are cut), as an outage would.
    pub fn stop(&self) {
        self.pg_ctl(&["stop", "-m", "fast", "-w"]);
    }

    /// Starts the server again after [`stop`](Self::stop).
    pub fn start(&self) {
        self.pg_ctl(&[
            "start",
            "-w",
            "-l",
            &self.data.with_file_name("log").display().to_string(),
            "-o",
            &self.options(),
        ]);
    }

    fn options(&self) -> String {
        let fsync = if self.durable { "" } else { " -c fsync=off" };
        format!("-k {} -p {} -c listen_addresses=''{fsync}", self.socket_dir.display(), self.port)
    }

    fn pg_ctl(&self, args: &[&str]) {
        let mut full = vec!["-D", self.data.to_str().expect("a UTF-8 temporary path")];
        full.extend_from_slice(args);
        run(&self.bin.join("pg_ctl"), &full, self.as_postgres);
    }
}

fn start(durable: bool) -> Cluster {
    let bin = find_bin().unwrap_or_else(|| panic!("the PostgreSQL tests need initdb and pg_ctl: {INSTALL}"));
    let as_postgres = output("id", &["-u"]).trim() == "0";
    if as_postgres && output("id", &["-u", "postgres"]).trim().is_empty() {
        panic!("the PostgreSQL server refuses to run as root, and there is no user `postgres` to run it: {INSTALL}");
    }
    let kind = if durable { "durable" } else { "fast" };
    let dir = std::env::temp_dir().join(format!("dynalease-pg-{}-{kind}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create the cluster's directory");
    if as_postgres {
        run(Path::new("chown"), &["postgres:", dir.to_str().expect("a UTF-8 temporary path")], false);
    }
    let data = dir.join("data");
    let data_arg = data.to_str().expect("a UTF-8 temporary path");
    run(
        &bin.join("initdb"),
        &[
            "-D",
            data_arg,
            "-A",
            "trust",
            "-U",
            "postgres",
            "-E",
            "UTF8",
            "--locale=C",
            "--no-sync",
            "--no-instructions",
        ],
        as_postgres,
    );

    // The watchdog: its standard input is a pipe that only this process writes to, so it reads
    // end-of-file when this process exits, however it exits; then it stops the server and
    // removes the directory.
    let stop = format!(
        "cat >/dev/null; {} {}/pg_ctl -D {data_arg} stop -m immediate >/dev/null 2>&1; rm -rf {}",
        if as_postgres { "runuser -u postgres --" } else { "" },
        bin.display(),
        dir.display()
    );
    // Never waited for: it outlives this process, which is its point.
    #[allow(clippy::zombie_processes)]
    let mut watchdog = Command::new("sh")
        .args(["-c", &stop])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start the watchdog of the cluster");
    let stdin = watchdog.stdin.take().expect("the watchdog's standard input");

    let cluster = Cluster {
        socket_dir: dir.clone(),
        port: PORT,
        user: "postgres",
        bin,
        data,
        as_postgres,
        durable,
        _watchdog: Mutex::new(stdin),
    };
    cluster.start();
    cluster
}

/// The directory of initdb and pg_ctl.
fn find_bin() -> Option<PathBuf> {
    let has_both = |dir: &Path| dir.join("initdb").is_file() && dir.join("pg_ctl").is_file();
    if let Ok(dir) = std::env::var("DYNALEASE_PG_BIN") {
        return Some(PathBuf::from(dir)).filter(|dir| has_both(dir));
    }
    let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| Some((entry.file_name().to_str()?.parse().ok()?, entry.path().join("bin"))))
        .filter(|(_, dir)| has_both(dir))
        .collect();
    versions.sort();
    if let Some((_, dir)) = versions.pop() {
        return Some(dir);
    }
    let from_config = PathBuf::from(output("pg_config", &["--bindir"]).trim());
    has_both(&from_config).then_some(from_config)
}

/// Runs a command to its end, as the user `postgres` if asked; panics with its output if it
/// fails.
fn run(program: &Path, args: &[&str], as_postgres: bool) {
    let mut command = if as_postgres {
        let mut command = Command::new("runuser");
        command.args(["-u", "postgres", "--"]).arg(program);
        command
    } else {
        Command::new(program)
    };
    // The server that `pg_ctl start` leaves running writes to its log file, not to these.
    let done = command
        .args(args)
        .current_dir(std::env::temp_dir())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .and_then(|child| child.wait_with_output())
        .unwrap_or_else(|err| panic!("{} could not run ({err}): {INSTALL}", program.display()));
    assert!(done.status.success(), "{} {args:?} failed: {}", program.display(), String::from_utf8_lossy(&done.stderr));
}

/// The standard output of a command, empty if it cannot run.
fn output(program: &str, args: &[&str]) -> String {
    Command::new(program)
        .args(args)
        .stderr(Stdio::null())
        .output()
        .map(|out| String::from_utf8_lossy(&out.stdout).into_owned())
        .unwrap_or_default()
}
