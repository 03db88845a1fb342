# Sourced (from the repository root) by the install and ABI scripts: the crate's version from
# Cargo.toml as $version, $vmajor, $vminor, $vpatch, and the name of its ABI as $abi — 0.MINOR
# while the major version is 0 (a 0.x minor may change the ABI), MAJOR from 1.0 on; the same rule
# as capi/build.rs's soname (docs/abi.md).
version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)
IFS=. read -r vmajor vminor vpatch <<<"$version"
if [ "$vmajor" = 0 ]; then abi="0.$vminor"; else abi=$vmajor; fi
