//! The Performance Metrics Name Space (PMNS): the `pmcpp` preprocessor that
//! ASCII PMNS files pass through, the loader of the ASCII format, and the
//! name tree with the PMAPI's name services.
//!
//! It sits on `pcp-core` (for PMIDs and error codes); the `pcp` facade
//! loads a context's name space with it (a local PMNS file, the names an
//! archive holds or pmcd sends), and pcp-tools' `pmcpp` command runs [`cpp`].
//!
//! ```
//! use pcp_core::{PmError, PmId};
//! use pcp_pmns::ascii::load_text;
//!
//! let text = b"root {\n    kernel\n}\nkernel {\n    all\n}\nkernel.all {\n    load 60:2:0\n    nprocs 3:0:0\n}\n";
//! let loaded = load_text(b"my.pmns", text, true);
//! assert!(loaded.diagnostics.is_empty());
//! let pmns = loaded.pmns.unwrap();
//!
//! assert_eq!(pmns.lookup("kernel.all.load"), Ok(PmId::new(60, 2, 0)));
//! assert_eq!(pmns.name_of(PmId::new(3, 0, 0)).unwrap(), "kernel.all.nprocs");
//! assert_eq!(pmns.traverse("kernel").unwrap(), ["kernel.all.load", "kernel.all.nprocs"]);
//! assert_eq!(pmns.lookup("kernel.all"), Err(PmError::PM_ERR_NONLEAF));
//! ```
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod ascii;
pub mod cpp;
pub mod tree;

pub use ascii::{load, LoadOptions, Loaded};
pub use tree::Pmns;
