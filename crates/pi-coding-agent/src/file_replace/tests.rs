use std::io::Read;
use std::os::unix::fs::{FileTypeExt, MetadataExt, PermissionsExt};

use super::*;

fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn replaces_the_content_keeping_the_mode_and_leaves_no_temporary_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("script.sh");
    std::fs::write(&path, "old\n").unwrap();
    std::fs::set_permissions(&path, Permissions::from_mode(0o751)).unwrap();
    let inode = std::fs::metadata(&path).unwrap().ino();
    let replaced = replace_file(&path, ReplaceOptions::USER_FILE, b"new\n").unwrap();
    assert_eq!(replaced.strategy, Strategy::Renamed);
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "new\n");
    let meta = std::fs::metadata(&path).unwrap();
    assert_eq!(meta.mode() & 0o7777, 0o751);
    assert_ne!(meta.ino(), inode, "a new file took the old one's place");
    assert_eq!(names(dir.path()), ["script.sh"]);
}

#[test]
fn a_new_file_gets_the_requested_mode_less_the_umask() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("secret.json");
    replace_file(&path, ReplaceOptions::PRIVATE_FILE, b"{}").unwrap();
    assert_eq!(std::fs::metadata(&path).unwrap().mode() & 0o777, 0o600);
    let path = dir.path().join("page.html");
    replace_file(&path, ReplaceOptions::USER_FILE, b"<p>").unwrap();
    let mode = std::fs::metadata(&path).unwrap().mode() & 0o777;
    // Whatever the umask, group and others lose only what it masks.
    assert_eq!(mode & 0o600, 0o600, "{mode:o}");
    assert_ne!(
        mode, 0o600,
        "not the temporary file's private mode: {mode:o}"
    );
}

#[test]
fn a_failed_write_leaves_the_file_and_no_temporary_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("keep.txt");
    std::fs::write(&path, "old\n").unwrap();
    let err = replace_file_with(&path, ReplaceOptions::USER_FILE, |out| {
        out.write_all(b"half")?;
        Err(io::Error::other("disk on fire"))
    })
    .unwrap_err();
    assert_eq!(err.step, Step::Write);
    assert!(err.unchanged);
    assert!(err.to_string().contains("disk on fire: write '"), "{err}");
    assert!(
        err.to_string().ends_with("keep.txt was not changed)"),
        "{err}"
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "old\n");
    assert_eq!(names(dir.path()), ["keep.txt"]);
}

#[test]
fn a_symlink_stays_a_symlink_and_its_real_file_is_replaced() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("dotfiles")).unwrap();
    let real = dir.path().join("dotfiles/settings.json");
    std::fs::write(&real, "{}").unwrap();
    let link = dir.path().join("settings.json");
    std::os::unix::fs::symlink("dotfiles/settings.json", &link).unwrap();
    let replaced = replace_file(&link, ReplaceOptions::USER_FILE, b"{\"a\":1}").unwrap();
    assert_eq!(replaced.path, dir.path().join("dotfiles/settings.json"));
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(std::fs::read_to_string(&real).unwrap(), "{\"a\":1}");
    assert_eq!(names(&dir.path().join("dotfiles")), ["settings.json"]);
}

#[test]
fn hard_links_stay_one_file_written_in_place() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.txt");
    let b = dir.path().join("b.txt");
    std::fs::write(&a, "a long old content\n").unwrap();
    std::fs::hard_link(&a, &b).unwrap();
    let replaced = replace_file(&a, ReplaceOptions::USER_FILE, b"short\n").unwrap();
    assert_eq!(
        replaced.strategy,
        Strategy::InPlace(InPlaceReason::HardLinks)
    );
    assert_eq!(std::fs::read_to_string(&b).unwrap(), "short\n");
    replace_file(
        &a,
        ReplaceOptions::USER_FILE,
        b"a longer content than before\n",
    )
    .unwrap();
    assert_eq!(
        std::fs::read_to_string(&b).unwrap(),
        "a longer content than before\n"
    );
    assert_eq!(std::fs::metadata(&a).unwrap().nlink(), 2);
}

#[test]
fn a_fifo_is_written_to_not_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("out.fifo");
    nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::from_bits_truncate(0o600)).unwrap();
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || {
            let mut text = String::new();
            std::fs::File::open(fifo)
                .unwrap()
                .read_to_string(&mut text)
                .unwrap();
            text
        })
    };
    let replaced = replace_file(&fifo, ReplaceOptions::USER_FILE, b"<html>").unwrap();
    assert_eq!(replaced.strategy, Strategy::Special);
    drop(replaced);
    assert_eq!(reader.join().unwrap(), "<html>");
    assert!(
        std::fs::symlink_metadata(&fifo)
            .unwrap()
            .file_type()
            .is_fifo()
    );
}

#[test]
fn the_owner_is_kept_where_the_process_may_set_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("owned.txt");
    std::fs::write(&path, "old").unwrap();
    let mine = std::fs::metadata(&path).unwrap();
    // Only root may give a file away; elsewhere the owner is ours already.
    let (uid, gid) = match std::os::unix::fs::chown(&path, Some(4242), Some(4343)) {
        Ok(()) => (4242, 4343),
        Err(_) => (mine.uid(), mine.gid()),
    };
    let replaced = replace_file(&path, ReplaceOptions::USER_FILE, b"new").unwrap();
    assert_eq!(replaced.strategy, Strategy::Renamed);
    let meta = std::fs::metadata(&path).unwrap();
    assert_eq!((meta.uid(), meta.gid()), (uid, gid));
}

#[test]
fn a_directory_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let err = replace_file(dir.path(), ReplaceOptions::USER_FILE, b"x").unwrap_err();
    assert_eq!(err.step, Step::Open);
    assert_eq!(err.source.kind(), io::ErrorKind::IsADirectory);
}

#[test]
fn the_lock_is_held_before_the_file_appears() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    std::fs::write(&path, "old\n").unwrap();
    let options = ReplaceOptions {
        lock: true,
        ..ReplaceOptions::USER_FILE
    };
    let replaced = replace_file(&path, options, b"new\n").unwrap();
    let other = std::fs::File::open(&path).unwrap();
    assert!(matches!(
        other.try_lock(),
        Err(std::fs::TryLockError::WouldBlock)
    ));
    drop(replaced);
    assert!(other.try_lock().is_ok());
}

#[test]
fn a_killed_writers_temporary_file_is_removed_by_the_next_write() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.txt");
    std::fs::write(&path, "old").unwrap();
    std::fs::write(dir.path().join(".big.txt.pi-tmp-4194305-Ab12Cd"), "partial").unwrap();
    replace_file(&path, ReplaceOptions::USER_FILE, b"new").unwrap();
    assert_eq!(names(dir.path()), ["big.txt"]);
}
