//! The C header decodes back to exactly the rendered pages.

use crate::common;

use hakase_device::{render_pages, write_c_header, Frame, PLANE_BYTES};

/// Reads `const unsigned char pageN_black[2756] = { ... };` arrays back into frames.
fn parse_header(text: &str) -> Vec<Frame> {
    let mut planes: Vec<(usize, String, Vec<u8>)> = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find("const unsigned char page") {
        let decl = &rest[start + "const unsigned char ".len()..];
        let bracket = decl.find('[').expect("[");
        let name = &decl[..bracket];
        let size: usize = decl[bracket + 1..decl.find(']').expect("]")]
            .parse()
            .expect("literal size");
        let (page, plane) = name["page".len()..].split_once('_').expect("pageN_plane");
        let body_start = decl.find('{').expect("{") + 1;
        let body_end = decl.find("};").expect("};");
        let bytes: Vec<u8> = decl[body_start..body_end]
            .split(',')
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .map(|t| u8::from_str_radix(t.trim_start_matches("0x"), 16).expect("hex byte"))
            .collect();
        assert_eq!(bytes.len(), size, "{name}");
        planes.push((page.parse().expect("page number"), plane.to_string(), bytes));
        rest = &decl[body_end..];
    }
    let pages = planes.iter().map(|p| p.0).max().unwrap_or(0);
    (1..=pages)
        .map(|page| {
            let plane = |which: &str| {
                planes
                    .iter()
                    .find(|p| p.0 == page && p.1 == which)
                    .map(|p| p.2.clone())
                    .unwrap_or_else(|| panic!("page{page}_{which} missing"))
            };
            Frame::from_planes(&plane("black"), &plane("color")).expect("plane sizes")
        })
        .collect()
}

#[test]
fn header_decodes_to_the_rendered_pages() {
    let frames = render_pages(&common::rentora_view()).expect("render");
    let mut out = Vec::new();
    write_c_header(&frames, &mut out).expect("header");
    let text = String::from_utf8(out).expect("ASCII");
    assert!(text.contains(&format!("#define HAKASE_PAGE_COUNT {}", frames.len())));
    assert!(text.contains("const unsigned char page1_black[2756] = {"));
    assert!(text.contains("const unsigned char page1_color[2756] = {"));
    assert_eq!(PLANE_BYTES, 2756);
    assert_eq!(parse_header(&text), frames);
}

#[test]
fn empty_page_list_gives_a_valid_header() {
    let mut out = Vec::new();
    write_c_header(&[], &mut out).expect("header");
    let text = String::from_utf8(out).expect("ASCII");
    assert!(text.contains("#define HAKASE_PAGE_COUNT 0"));
    assert!(!text.contains("hakase_pages_black"));
    assert!(parse_header(&text).is_empty());
}
