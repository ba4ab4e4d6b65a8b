        .text
