//! The panel on a Linux board: spidev for SPI (the kernel drives chip select) and the GPIO
//! character device for BUSY, DC and RST.

use std::convert::Infallible;
use std::io;
use std::path::Path;
use std::time::Duration;

use linux_embedded_hal::gpio_cdev::{Chip, LineHandle, LineRequestFlags};
use linux_embedded_hal::spidev::{SpiModeFlags, SpidevOptions};
use linux_embedded_hal::{CdevPin, Delay, SpidevDevice};

use super::{refresh, PanelConfig};
use crate::error::DeviceError;
use crate::frame::Frame;

/// SPI clock; the controller accepts up to 20 MHz for writes, Waveshare's demos use 4 MHz.
const SPI_HZ: u32 = 4_000_000;
/// Label the kernel shows for lines hakase holds.
const CONSUMER: &str = "hakase";
/// How often the button is sampled.
const BUTTON_POLL: Duration = Duration::from_millis(20);

pub(super) fn show(config: &PanelConfig, frame: &Frame) -> Result<(), DeviceError> {
    let mut spi = open_spi(&config.spi)?;
    let mut chip = open_chip(&config.gpiochip)?;
    let busy = pin(
        request(&mut chip, config, config.busy, "BUSY", Direction::Input)?,
        config.busy,
    )?;
    let dc = pin(
        request(&mut chip, config, config.dc, "DC", Direction::Output)?,
        config.dc,
    )?;
    let rst = pin(
        request(&mut chip, config, config.rst, "RST", Direction::Output)?,
        config.rst,
    )?;
    refresh(&mut spi, busy, dc, rst, &mut Delay, frame)
}

pub(super) fn button_loop(
    config: &PanelConfig,
    frames: &[Frame],
    button: u32,
) -> Result<Infallible, DeviceError> {
    let mut chip = open_chip(&config.gpiochip)?;
    let line = request(&mut chip, config, button, "button", Direction::Input)?;
    let read = |line: &LineHandle| {
        line.get_value().map_err(|e| DeviceError::Device {
            what: format!("button GPIO line {button}"),
            message: e.to_string(),
        })
    };
    let mut page = 0;
    loop {
        if let Some(frame) = frames.get(page) {
            show(config, frame)?;
        }
        // Presses made while the panel refreshed are dropped: only a new press counts.
        let mut last = read(&line)?;
        loop {
            std::thread::sleep(BUTTON_POLL);
            let now = read(&line)?;
            let pressed = last == 1 && now == 0;
            last = now;
            if pressed {
                break;
            }
        }
        page = (page + 1) % frames.len().max(1);
    }
}

fn open_spi(path: &Path) -> Result<SpidevDevice, DeviceError> {
    if !path.exists() {
        return Err(DeviceError::DeviceMissing {
            what: "SPI device",
            path: path.to_path_buf(),
        });
    }
    let mut spi = SpidevDevice::open(path).map_err(|e| io_error(e.inner(), "SPI device", path))?;
    let options = SpidevOptions::new()
        .bits_per_word(8)
        .max_speed_hz(SPI_HZ)
        .mode(SpiModeFlags::SPI_MODE_0)
        .build();
    spi.configure(&options)
        .map_err(|e| io_error(&e, "SPI device", path))?;
    Ok(spi)
}

fn open_chip(path: &Path) -> Result<Chip, DeviceError> {
    if !path.exists() {
        return Err(DeviceError::DeviceMissing {
            what: "GPIO chip",
            path: path.to_path_buf(),
        });
    }
    Chip::new(path).map_err(|e| match io_source(&e) {
        Some(io) => io_error(io, "GPIO chip", path),
        None => DeviceError::Device {
            what: format!("GPIO chip {}", path.display()),
            message: e.to_string(),
        },
    })
}

#[derive(Clone, Copy)]
enum Direction {
    Input,
    Output,
}

fn request(
    chip: &mut Chip,
    config: &PanelConfig,
    offset: u32,
    role: &str,
    direction: Direction,
) -> Result<LineHandle, DeviceError> {
    let what = format!(
        "GPIO line {offset} ({role}) on {}",
        config.gpiochip.display()
    );
    let device = |message: String| DeviceError::Device {
        what: what.clone(),
        message,
    };
    let line = chip.get_line(offset).map_err(|e| device(e.to_string()))?;
    let info = line.info().map_err(|e| device(e.to_string()))?;
    if info.is_used() {
        return Err(DeviceError::DeviceBusy {
            what,
            consumer: info.consumer().map(str::to_string),
        });
    }
    let (flags, default) = match direction {
        Direction::Input => (LineRequestFlags::INPUT, 0),
        // RST idles high (not in reset); DC's idle level does not matter.
        Direction::Output => (LineRequestFlags::OUTPUT, 1),
    };
    line.request(flags, default, CONSUMER).map_err(|e| {
        let message = e.to_string();
        if message.contains("EBUSY") {
            DeviceError::DeviceBusy {
                what: what.clone(),
                consumer: None,
            }
        } else {
            device(message)
        }
    })
}

fn pin(handle: LineHandle, offset: u32) -> Result<CdevPin, DeviceError> {
    CdevPin::new(handle).map_err(|e| DeviceError::Device {
        what: format!("GPIO line {offset}"),
        message: e.to_string(),
    })
}

fn io_source<'a>(error: &'a (dyn std::error::Error + 'static)) -> Option<&'a io::Error> {
    let mut next = error.source();
    while let Some(cause) = next {
        if let Some(io) = cause.downcast_ref::<io::Error>() {
            return Some(io);
        }
        next = cause.source();
    }
    None
}

fn io_error(error: &io::Error, what: &'static str, path: &Path) -> DeviceError {
    match error.kind() {
        io::ErrorKind::NotFound => DeviceError::DeviceMissing {
            what,
            path: path.to_path_buf(),
        },
        io::ErrorKind::PermissionDenied => DeviceError::PermissionDenied {
            path: path.to_path_buf(),
        },
        io::ErrorKind::ResourceBusy => DeviceError::DeviceBusy {
            what: format!("{what} {}", path.display()),
            consumer: None,
        },
        _ => DeviceError::Device {
            what: format!("{what} {}", path.display()),
            message: error.to_string(),
        },
    }
}
