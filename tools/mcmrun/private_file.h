// A file of mcmrun's that only its user can read or replace: the --rankfile placement that
// mpirun reads. A name in the shared temporary directory (/tmp/mcmrun-placement-<pid>)
// could be pre-created or made a symlink by another local user, who would then choose where
// the ranks run or have mcmrun overwrite a file of theirs. Instead:
//  - the directory is made with mkdtemp(3) under $TMPDIR (or /tmp): a new name, mode 0700;
//  - the file in it is created with O_CREAT | O_EXCL | O_NOFOLLOW, mode 0600;
//  - both are removed when the PrivateFile goes (normal return or exception).
// Errors (no temporary directory, a full disk) throw UsageError naming the path at fault.
#pragma once

#include <string>

namespace mcmrun {

class PrivateFile {
 public:
  /// Writes `text` to a new file `name` in a new private directory.
  PrivateFile(const std::string& name, const std::string& text);
  ~PrivateFile();
  PrivateFile(const PrivateFile&) = delete;
  PrivateFile& operator=(const PrivateFile&) = delete;

  const std::string& path() const { return path_; }
  const std::string& directory() const { return directory_; }

  /// What path() looks like, for --dry-run (which makes nothing): "$TMPDIR/mcmrun-XXXXXX/name".
  static std::string pattern(const std::string& name);

 private:
  void remove();

  std::string directory_;
  std::string path_;
};

}  // namespace mcmrun
