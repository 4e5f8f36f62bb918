use std::collections::BTreeSet;

use super::{
    Symbol, executed_addresses, executed_symbols, order_file_names, order_file_text, parse_nm,
};

const NM: &str = "\
0000000000001000 0000000000000040 T _ZN3app4main17h0123456789abcdefE
0000000000001040 0000000000000020 t _ZN3app6helper17h1111111111111111E
0000000000001080 0000000000000010 W weak_fn
0000000000002000 0000000000000100 D some_data
0000000000001060 0000000000000000 t zero_sized
0000000000001100 0000000000000030 r rodata_thing
                 U undefined_fn
";

fn sym(address: u64, size: u64, name: &str) -> Symbol {
    Symbol {
        address,
        size,
        name: name.to_owned(),
    }
}

#[test]
fn nm_output_gives_the_sized_text_symbols_in_address_order() {
    assert_eq!(
        parse_nm(NM),
        vec![
            sym(0x1000, 0x40, "_ZN3app4main17h0123456789abcdefE"),
            sym(0x1040, 0x20, "_ZN3app6helper17h1111111111111111E"),
            sym(0x1080, 0x10, "weak_fn"),
        ]
    );
}

#[test]
fn only_the_addresses_of_the_named_object_are_taken() {
    // As callgrind writes a profile with --compress-strings=no and
    // --compress-pos=no: `ob=` switches the object; `cob=`/`calls=` lines
    // and the cost lines of other objects are not the binary's.
    let profile = "\
positions: instr line
ob=/lib/libc.so.6
fn=memcpy
0x1000 1 5
ob=/tmp/bin/pi
fn=main
0x1004 10 3
0x1008 11 1
cob=/lib/libc.so.6
cfn=memcpy
calls=1 0x1000 0
0x100c 12 40
fn=helper
0x1044 20 2
ob=/lib/libc.so.6
fn=memset
0x1048 3 1
";
    let mut addresses = BTreeSet::new();
    executed_addresses(profile, "/tmp/bin/pi", &mut addresses);
    assert_eq!(
        addresses.into_iter().collect::<Vec<_>>(),
        vec![0x1004, 0x1008, 0x100c, 0x1044]
    );
}

#[test]
fn addresses_map_to_the_symbols_that_contain_them_once_each() {
    let symbols = parse_nm(NM);
    // Two addresses in main, one in helper, one in a gap after weak_fn,
    // one before every symbol.
    let addresses: BTreeSet<u64> = [0x0800, 0x1000, 0x103f, 0x1050, 0x1090].into();
    let names: Vec<&str> = executed_symbols(&symbols, &addresses)
        .into_iter()
        .map(|s| s.name.as_str())
        .collect();
    assert_eq!(
        names,
        vec![
            "_ZN3app4main17h0123456789abcdefE",
            "_ZN3app6helper17h1111111111111111E"
        ]
    );
}

#[test]
fn the_order_file_reads_back_as_its_names() {
    let symbols = parse_nm(NM);
    let refs: Vec<&Symbol> = symbols.iter().collect();
    let text = order_file_text(&refs);
    assert!(text.starts_with('#'));
    let names: Vec<&str> = order_file_names(&text).collect();
    assert_eq!(
        names,
        vec![
            "_ZN3app4main17h0123456789abcdefE",
            "_ZN3app6helper17h1111111111111111E",
            "weak_fn"
        ]
    );
    assert_eq!(
        order_file_names("  a \n\n# c\n  # d\nb\n").collect::<Vec<_>>(),
        vec!["a", "b"]
    );
}
